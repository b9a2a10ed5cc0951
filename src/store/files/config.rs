//! The owner's `memdir.yaml`: read as text, and the change that edits it in
//! place (the routine's `review:` line; nothing else is written).

use crate::disk::{Change, Dir, Held};
use crate::error::{Error, Result};
use crate::model::Settings;
use crate::store::limits::CONFIG_BYTES;
use crate::store::owner::At;
use crate::store::root::CONFIG_FILE;

/// The owner's memdir.yaml as read: the file and its text (empty if
/// missing).
pub(crate) fn read(at: At<'_>) -> Result<(Option<Held>, String)> {
    super::read_text(at, CONFIG_FILE, CONFIG_BYTES)
}

/// The change that edits the owner's memdir.yaml with `edit` (`None`: no
/// change); the result must still parse as settings.
pub(crate) fn edit<'a>(
    dir: &'a Dir,
    held: Option<Held>,
    edit: impl Fn(&str) -> Option<String> + 'a,
) -> Change<'a> {
    let path = dir.join(CONFIG_FILE);
    super::rewrite(dir, CONFIG_FILE, CONFIG_BYTES, held, move |src| {
        let Some(next) = edit(src) else {
            return Ok(None);
        };
        Settings::from_yaml(&next, &path).map_err(|e| Error::InvalidConfig {
            path: path.clone(),
            message: format!("not edited: the result would not parse: {e}"),
        })?;
        Ok(Some(next))
    })
}
