//! The skill body's rendering: literal inputs and outputs, and the property
//! that no body makes a heading or a line of memdir's own in a snapshot.

use proptest::prelude::*;
use proptest::test_runner::Config;
use pulldown_cmark::{Event, Options, Parser, Tag, TagEnd};

use super::*;
use crate::model::Scope;
use crate::snapshot::lines::{is_own_line, marks_len};
use crate::snapshot::{SkillInput, StoreInput, render, with_skills};

#[track_caller]
fn shows(body: &str, expected: &str) {
    assert_eq!(render_body(body), expected, "body: {body:?}");
}

#[test]
fn atx_headings_move_below_memdir_s_own() {
    shows(
        "# Deploy checklist\n\n## Steps\n1. build\n#### Four\n##### Five\n###### Six #",
        "### Deploy checklist\n\n#### Steps\n1. build\n###### Four\n###### Five\n###### Six #",
    );
    // Indented by up to three spaces, inside a quote or a list item.
    shows(
        "  # Two spaces\n> # Quoted\n- ## In a list",
        "  ### Two spaces\n> ### Quoted\n- #### In a list",
    );
}

#[test]
fn setext_headings_become_atx_on_one_line() {
    shows(
        "Deploy\n======\ntext\n\nMore\nlines\n---\nafter",
        "### Deploy\ntext\n\n#### More lines\nafter",
    );
    shows("> Quoted\n> title\n> ===", "> ### Quoted title");
    // Content that starts with `#` (not an ATX heading: no space).
    shows("#x\n===", "### #x");
}

#[test]
fn headings_naming_memdir_s_sections_stay_escaped() {
    shows(
        "# USER.md (what you know about the user)\n\n## Skill other — x\n\n### [BLOCKED: y]\n\n#memory.md",
        "\\# USER.md (what you know about the user)\n\n\\## Skill other — x\n\n\\### [BLOCKED: y]\n\n\\#memory.md",
    );
    // Emphasis, a code span or invisible characters do not hide the title.
    shows(
        "# *USER.md*\n\n## `MEMORY.md`\n\n### Sk\u{200B}ill x",
        "\\# *USER.md*\n\n\\## `MEMORY.md`\n\n\\### Sk\u{200B}ill x",
    );
    // A setext one becomes an escaped ATX line of its own level.
    shows("memory.MD\n===", "\\# memory.MD");
    // Escaped, a heading is a paragraph line: an underline after it would
    // make it a setext heading, so a blank line comes between.
    shows(
        "# USER.md\n---\n# Skill\n===",
        "\\# USER.md\n\n---\n\\# Skill\n\n===",
    );
    // An escaped link reference definition is a paragraph: an underline
    // after it is escaped too.
    shows("[OVER BUDGET:\n]: /u\n===", "\\[OVER BUDGET:\n]: /u\n\\===");
    // Headings that only start like a title are the skill's.
    shows("# Skills\n## Users", "### Skills\n#### Users");
}

#[test]
fn full_width_and_look_alike_lines_are_escaped() {
    shows(
        "＃＃ USER.md\n\n［BLOCKED: x］\n\n## ＭＥＭＯＲＹ.md\n\n> [OVER BUDGET: y]\n\n- [CONFLICT: z]\n\n## Ѕkill x",
        "\\＃＃ USER.md\n\n\\［BLOCKED: x］\n\n\\## ＭＥＭＯＲＹ.md\n\n> \\[OVER BUDGET: y]\n\n- \\[CONFLICT: z]\n\n\\## Ѕkill x",
    );
}

#[test]
fn open_fences_and_html_blocks_are_closed() {
    // Inside a fence, lines stay as they are unless they read as memdir's own.
    shows(
        "```sh\n# build\n## USER.md\nmake",
        "```sh\n# build\n\\## USER.md\nmake\n```",
    );
    shows("~~~~\ncode\n~~~~~\nafter", "~~~~\ncode\n~~~~~\nafter");
    shows("````\n```\nstill code", "````\n```\nstill code\n````");
    shows("<!-- note\n## Skill x", "<!-- note\n\\## Skill x\n-->");
    shows("<pre>\nkept", "<pre>\nkept\n</pre>");
    shows("<!-- closed -->\ntext", "<!-- closed -->\ntext");
    // A fence left open inside a quote ends with the quote.
    shows("> ```\n> code", "> ```\n> code");
}

#[test]
fn other_lines_are_left_alone_and_controls_escaped() {
    shows(
        "#hashtag\n####### seven\n    # indented code\nrun \u{1b}x",
        "#hashtag\n####### seven\n    # indented code\nrun \\u{1B}x",
    );
}

// ---------------------------------------------------------------- property

/// Pieces of lines: memdir's titles and placeholders in several disguises,
/// and the marks that make or break headings, fences and HTML blocks.
const PIECES: &[&str] = &[
    "# ",
    "## ",
    "###",
    "＃＃ ",
    "#",
    " ",
    "   ",
    "    ",
    "\t",
    "> ",
    "- ",
    "1. ",
    "* ",
    "*",
    "_",
    "`",
    "\\",
    "USER.md",
    "ＵＳＥＲ.md",
    "MEMORY.md (your notes)",
    "memory.md",
    "Skill",
    "Skill x — y",
    "skills",
    "Ѕkill",
    "[BLOCKED: a]",
    "［BLOCKED: b］",
    "[OVER BUDGET:",
    "[CONFLICT: c]",
    "===",
    "---",
    "-",
    "=",
    "```",
    "~~~",
    "````",
    "<!--",
    "-->",
    "<pre>",
    "</pre>",
    "<?",
    "<!X",
    "<![CDATA[",
    "<div>",
    "<b>",
    "</b>",
    "&#35; ",
    "&#85;",
    ":",
    "]: /u",
    "text",
    "Steps",
    "—",
    "\u{200B}",
];

fn any_body() -> impl Strategy<Value = String> {
    let line = prop::collection::vec(prop::sample::select(PIECES), 0..5).prop_map(|p| p.concat());
    prop::collection::vec(line, 0..10).prop_map(|l| l.join("\n"))
}

/// Every heading of `text`: its level, its text as it reads, and whether
/// it is an ATX heading (`#`).
fn headings(text: &str) -> Vec<(usize, String, bool)> {
    let mut out = Vec::new();
    let mut open: Option<(usize, String, bool)> = None;
    for (event, r) in Parser::new_ext(text, Options::empty()).into_offset_iter() {
        match event {
            Event::Start(Tag::Heading { level, .. }) => {
                let atx = text[r].trim_start().starts_with('#');
                open = Some((level as usize, String::new(), atx));
            }
            Event::Text(t) | Event::Code(t) | Event::InlineHtml(t) => {
                if let Some((_, s, _)) = open.as_mut() {
                    s.push_str(&t);
                }
            }
            Event::SoftBreak | Event::HardBreak => {
                if let Some((_, s, _)) = open.as_mut() {
                    s.push(' ');
                }
            }
            Event::End(TagEnd::Heading(_)) => out.extend(open.take()),
            _ => {}
        }
    }
    out
}

proptest! {
    #![proptest_config(Config {
        cases: std::env::var("PROPTEST_CASES").ok().and_then(|v| v.parse().ok()).unwrap_or(2048),
        failure_persistence: None,
        ..Config::default()
    })]

    /// Whatever two skills' bodies hold, the snapshot's headings that name
    /// a memdir section (or read as a placeholder) are exactly memdir's own,
    /// at their level and in their order; every other heading is a skill's,
    /// below them; and no other line reads as one of memdir's own.
    #[test]
    fn no_body_forges_memdir_s_structure(a in any_body(), b in any_body()) {
        let stores = [
            StoreInput { scope: Scope::User, entries: vec![("", "Prefers tea")], limit: 1375, conflicts: vec![] },
            StoreInput { scope: Scope::Memory, entries: vec![], limit: 2200, conflicts: vec![] },
        ];
        let skills = [
            SkillInput { name: "one", description: "first", body: &a },
            SkillInput { name: "two", description: "", body: &b },
        ];
        let s = with_skills(render(&stores), &skills);
        // A skill the scanner blocks is shown without its description.
        let one = if s.blocked_skills.iter().any(|b| b.name == "one") { "Skill one" } else { "Skill one — first" };
        let own = [
            "USER.md (what you know about the user) [0% — 13/1375 chars]",
            "MEMORY.md (your notes) [0% — 0/2200 chars]",
            one,
            "Skill two",
        ];
        let placeholders: Vec<String> = s.blocked_skills.iter()
            .map(|b| format!("[BLOCKED: skills/{}/SKILL.md", b.name)).collect();
        let found = headings(&s.text);
        let memdir: Vec<&(usize, String, bool)> =
            found.iter().filter(|(_, t, _)| is_own_title(t)).collect();
        prop_assert_eq!(memdir.len(), own.len(), "{}", s.text);
        for ((level, title, _), want) in memdir.iter().zip(own) {
            prop_assert_eq!(*level, OWN_LEVEL, "{}", s.text);
            prop_assert_eq!(title.as_str(), want, "{}", s.text);
        }
        for (level, title, atx) in &found {
            prop_assert!(is_own_title(title) || *level > OWN_LEVEL, "{:?} in {}", title, s.text);
            prop_assert!(*atx, "a setext heading {:?} in {}", title, s.text);
        }
        let mut headers = 0;
        for line in s.text.lines() {
            if !is_own_line(&line[marks_len(line)..]) {
                continue;
            }
            if own.iter().any(|o| line.strip_prefix("## ") == Some(*o)) {
                headers += 1;
            } else {
                prop_assert!(placeholders.iter().any(|p| line.starts_with(p)), "{:?} in {}", line, s.text);
            }
        }
        prop_assert_eq!(headers, own.len(), "{}", s.text);
    }
}
