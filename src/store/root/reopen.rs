//! A kept `Store` opened again for one call of a long-lived process: what
//! it remembers kept where the files still back it.

use std::path::Path;
use std::sync::Arc;

use super::{MACHINE_CONFIG_FILE, MachineSeen, Settings, Store, read_settings_cached};
use crate::error::{Error, Result};
use crate::store::parse_cache::{StatKey, settled_key};

impl Store {
    /// This store as the root's files are now, for a process that serves
    /// many calls (`memdir serve`): what this value remembers is kept
    /// where the files still back it, and read again where they do not.
    ///
    /// * The root's `memdir.yaml`: kept while its stat (device, inode,
    ///   size, modification and status-change times in ns) is the one it had
    ///   when read and it had not changed for two seconds by then (git's
    ///   rule for racily clean files), else read again (and parsed again
    ///   only for other bytes).
    /// * The machine-local configuration (the chosen and the account's
    ///   `config.yaml`): kept on the same rule, else read again when next
    ///   needed.
    /// * The parses of the stores are shared: they answer only for the
    ///   very bytes read, so every call still reads the files it uses.
    /// * The scan key, the recall figures behind, the lock timeout and the
    ///   recall model are shared; the deadline is not.
    pub fn reopen(&self) -> Result<Store> {
        let (settings, refused) = match self.disk.open_root(&self.root)? {
            Some(dir) => match read_settings_cached(&self.disk, &dir, &self.parsed) {
                Ok(s) => (s, None),
                Err(Error::InvalidConfig { path, message }) => {
                    (Settings::default(), Some(Arc::new((path, message))))
                }
                Err(e) => return Err(e),
            },
            None => (Settings::default(), None),
        };
        let seen = self.machine_stats();
        let kept = seen.is_some() && seen == self.machine_seen;
        let mut store = Store {
            settings: Arc::new(settings),
            refused,
            deadline: None,
            machine_seen: seen,
            ..self.clone()
        };
        if !kept {
            store.machine = Arc::default();
            store.account = Arc::default();
            store.account_machine = Arc::default();
        }
        Ok(store)
    }

    /// The settled stats of both `config.yaml` files, `None` when either is
    /// not settled or cannot be looked at.
    fn machine_stats(&self) -> Option<MachineSeen> {
        let stat = |folder: Option<&Path>| -> Option<Option<StatKey>> {
            let Some(folder) = folder else {
                return Some(None);
            };
            let Ok(dir) = self.disk.open_root(folder) else {
                return None;
            };
            let Some(dir) = dir else {
                return Some(None);
            };
            match self.disk.stat(&dir, MACHINE_CONFIG_FILE).ok()? {
                None => Some(None),
                Some(st) => settled_key(&st).map(Some),
            }
        };
        let account = self.account_config_dir();
        Some([stat(self.config_dir.as_deref())?, stat(account.as_deref())?])
    }
}
