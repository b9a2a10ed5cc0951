//! An independent oracle for entries: the top-level list items of a markdown
//! source, by a direct walk of pulldown-cmark's events (items whose list is
//! not inside any other block), with a leading BOM skipped.

use std::ops::Range;

use pulldown_cmark::{Event, Options, Parser, Tag};

/// The byte ranges of the top-level list items of `src`.
pub fn top_level_items(src: &str) -> Vec<Range<usize>> {
    let (base, body) = match src.strip_prefix('\u{feff}') {
        Some(rest) => ('\u{feff}'.len_utf8(), rest),
        None => (0, src),
    };
    let mut stack: Vec<Tag> = Vec::new();
    let mut items = Vec::new();
    for (event, r) in
        Parser::new_ext(body, Options::ENABLE_YAML_STYLE_METADATA_BLOCKS).into_offset_iter()
    {
        match event {
            Event::Start(tag) => {
                if matches!(tag, Tag::Item) && matches!(stack.as_slice(), [Tag::List(_)]) {
                    items.push(r.start + base..r.end + base);
                }
                stack.push(tag);
            }
            Event::End(_) => {
                stack.pop();
            }
            _ => {}
        }
    }
    items
}
