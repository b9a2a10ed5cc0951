//! Machine-local configuration: settings that grant access or run programs,
//! read only from the configuration folder of the machine's user
//! (`config.yaml` there), never from a memory folder, which a `git pull` can
//! change. Pure: the store reads the file and passes its text.

use std::collections::BTreeMap;
use std::path::Path;

use serde::Deserialize;

use super::settings::{MAX_CONFIG_BYTES, check_yaml_bounds};
use crate::error::{Error, Result};

/// The machine-local configuration file's name in the configuration folder.
pub const MACHINE_CONFIG_FILE: &str = "config.yaml";

/// What the machine-local `config.yaml` may hold. Every key is optional.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MachineConfig {
    /// Binds each person id to the operating-system user ids that may act as
    /// that person (`--person ann` from another user is refused). Without
    /// it, the command line believes `--person` as given, as git believes an
    /// author name.
    pub persons: Option<BTreeMap<String, Vec<u32>>>,
    /// The daily review's reviewer: a command run with `sh -c` that reads
    /// the review's document on standard input and prints proposals
    /// (docs/REVIEW.md).
    pub reviewer: Option<String>,
    /// How long the reviewer may run, in seconds (default 120).
    pub reviewer_timeout_secs: Option<u64>,
    /// Semantic recall (docs/RECALL.md): the sentence-embedding model and
    /// the time a recall's scoring may take.
    pub recall: Option<RecallConfig>,
    /// The write policy of every root this machine's user opens: `review`
    /// makes an agent's writes that add or change text wait for a person.
    /// A `memdir.yaml` may tighten it, never loosen it.
    pub writes: Option<super::settings::WritePolicy>,
    /// The scanner (docs/SECURITY.md): whether the semantic layer judges
    /// beside the rules where a recall model is configured.
    pub scan: Option<ScanConfig>,
}

/// The `scan:` section of the machine-local `config.yaml`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ScanConfig {
    /// `true` turns the semantic layer on (the recall model's vector
    /// scored by the committed classifier, beside the rules). Off by
    /// default: on public notes it did not see in tuning it flags 4.6% of
    /// benign notes, over the 1% a default may flag (docs/SECURITY.md).
    pub semantic: Option<bool>,
}

/// The `recall:` section of the machine-local `config.yaml`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RecallConfig {
    /// A sentence-transformers model folder (`config.json`,
    /// `model.safetensors`, `tokenizer.json`, `1_Pooling/config.json`):
    /// recall fuses its embeddings with the lexical score. A relative path
    /// is taken from the configuration folder. Without it, recall is
    /// lexical.
    pub model: Option<std::path::PathBuf>,
    /// How long a recall's scoring may take, in milliseconds (default 200):
    /// past it, recall falls back (docs/RECALL.md).
    pub timeout_ms: Option<u64>,
}

impl MachineConfig {
    /// Parses a `config.yaml`; `path` is named in errors.
    pub fn from_yaml(text: &str, path: &Path) -> Result<MachineConfig> {
        if text.trim().is_empty() {
            return Ok(MachineConfig::default());
        }
        check_yaml_bounds(text, MAX_CONFIG_BYTES, path, "config.yaml")?;
        serde_yaml::from_str(text).map_err(|e| Error::InvalidConfig {
            path: path.to_owned(),
            message: e.to_string(),
        })
    }

    /// Whether the operating-system user `uid` may act as `person`: always
    /// without a `persons` binding; with one, only a listed user of a listed
    /// person.
    pub fn person_allowed(&self, person: &str, uid: u32) -> bool {
        match &self.persons {
            None => true,
            Some(map) => map.get(person).is_some_and(|uids| uids.contains(&uid)),
        }
    }
}

/// The user database read for the account's own configuration folder.
pub const PASSWD_FILE: &str = "/etc/passwd";

/// The account's own configuration folder under its home directory (the
/// XDG default, `$HOME/.config/memdir`, with the home the user database
/// names rather than `$HOME`).
pub const ACCOUNT_CONFIG_DIR: &str = ".config/memdir";

/// The home directory `passwd` (the text of `/etc/passwd`) names for the
/// user `uid`: the sixth field of the first line whose third field is the
/// uid; only an absolute path. `None` when no line names the uid (a user
/// only a directory service knows), or its home is not absolute.
pub fn home_of(passwd: &str, uid: u32) -> Option<std::path::PathBuf> {
    let uid = uid.to_string();
    passwd.lines().find_map(|line| {
        let fields: Vec<&str> = line.split(':').collect();
        match fields.as_slice() {
            [_, _, id, _, _, home, ..] if *id == uid && home.starts_with('/') => {
                Some(std::path::PathBuf::from(home))
            }
            _ => None,
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_home_is_read_from_the_user_database_by_uid() {
        let passwd = "root:x:0:0:root:/root:/bin/bash\n\
                      # a comment\n\
                      ann:x:1000:1000:Ann,,,:/home/ann:/bin/sh\n\
                      odd:x:1001:1001::relative/home:/bin/sh\n\
                      short:x:1002\n\
                      ann2:x:1000:1000::/home/other:/bin/sh\n";
        assert_eq!(home_of(passwd, 0), Some("/root".into()));
        assert_eq!(home_of(passwd, 1000), Some("/home/ann".into()));
        assert_eq!(home_of(passwd, 1001), None);
        assert_eq!(home_of(passwd, 1002), None);
        assert_eq!(home_of(passwd, 10), None);
        assert_eq!(home_of("", 0), None);
    }

    #[test]
    fn persons_bind_to_user_ids() {
        let p = Path::new("config.yaml");
        let open = MachineConfig::from_yaml("", p).unwrap();
        assert!(open.person_allowed("anyone", 0));
        let bound =
            MachineConfig::from_yaml("persons:\n  ann: [1000, 1001]\n  bob: []\n", p).unwrap();
        assert!(bound.person_allowed("ann", 1001));
        assert!(!bound.person_allowed("ann", 1002));
        assert!(!bound.person_allowed("bob", 1000));
        assert!(!bound.person_allowed("carol", 1000));
        assert_eq!(
            MachineConfig::from_yaml("writes: review\n", p)
                .unwrap()
                .writes,
            Some(crate::model::settings::WritePolicy::Review)
        );
        assert_eq!(
            MachineConfig::from_yaml("persns: {}\n", p)
                .unwrap_err()
                .code()
                .as_str(),
            "invalid_config"
        );
    }
}
