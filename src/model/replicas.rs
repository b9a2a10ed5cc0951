//! The replicas of a memory root: `replicas:` in the root's `memdir.yaml`,
//! a list of the `memdir serve --sync … --replica NAME` servers that each
//! hold a clone of the root, each with its URL and the owners homed on it.
//! The file is committed and synced, so every replica reads the same list.
//!
//! The home of an owner is the replica whose `owners` lists it, else the
//! first replica of the list: one rule, the same on every replica, that an
//! operator and a load balancer can follow (docs/SCALING.md). Pure: the
//! list is parsed with the settings, checked here.

use std::collections::{BTreeMap, BTreeSet};

use serde::{Deserialize, Serialize};

use super::id::validate_id;

/// Most replicas a root names.
pub const MAX_REPLICAS: usize = 64;
/// Longest URL of a replica, in bytes.
pub const MAX_URL_BYTES: usize = 2048;

/// One replica: a server with a clone of the root.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, Serialize, schemars::JsonSchema)]
pub struct Replica {
    /// Its name (`--replica NAME`), an id.
    pub name: String,
    /// Where its clients reach it (`http://…` or `https://…`): what a
    /// `misdirected` answer names.
    pub url: String,
    /// The owners homed on it (the first replica also homes every owner no
    /// replica lists).
    #[serde(default)]
    pub owners: Vec<String>,
    /// Keys this version does not know, kept and ignored.
    #[serde(flatten, default, skip_serializing)]
    #[schemars(skip)]
    pub(crate) unknown: BTreeMap<String, serde_yaml::Value>,
}

/// Refuses a list of replicas that does not give every owner one home:
/// too many replicas, a name that is no id or given twice, a URL that is
/// not `http(s)://` or too long, an owner that is no id or listed by two
/// replicas. The reason, worded for the file.
pub fn check(list: &[Replica]) -> std::result::Result<(), String> {
    if list.len() > MAX_REPLICAS {
        return Err(format!(
            "`replicas`: {} replicas, more than {MAX_REPLICAS}",
            list.len()
        ));
    }
    let mut names = BTreeSet::new();
    let mut homes: BTreeMap<&str, &str> = BTreeMap::new();
    for r in list {
        validate_id("replica", &r.name).map_err(|e| format!("`replicas`: {e}"))?;
        if !names.insert(r.name.to_ascii_lowercase()) {
            return Err(format!("`replicas`: {:?} is named twice", r.name));
        }
        let scheme = r.url.starts_with("http://") || r.url.starts_with("https://");
        let clean = !r.url.chars().any(|c| c.is_whitespace() || c.is_control());
        if !scheme || !clean || r.url.len() > MAX_URL_BYTES {
            return Err(format!(
                "`replicas`: the url of {:?} is not an http:// or https:// URL of at most \
                 {MAX_URL_BYTES} bytes",
                r.name
            ));
        }
        for o in &r.owners {
            validate_id("owner", o).map_err(|e| format!("`replicas` of {:?}: {e}", r.name))?;
            if let Some(other) = homes.insert(o, &r.name) {
                return Err(format!(
                    "`replicas`: {o:?} is homed on both {other:?} and {:?}",
                    r.name
                ));
            }
        }
    }
    Ok(())
}

/// The home of `owner`: the replica that lists it, else the first; `None`
/// for an empty list.
pub fn home<'a>(list: &'a [Replica], owner: &str) -> Option<&'a Replica> {
    list.iter()
        .find(|r| r.owners.iter().any(|o| o == owner))
        .or_else(|| list.first())
}

/// The replica named `name`, if the list holds it.
pub fn named<'a>(list: &'a [Replica], name: &str) -> Option<&'a Replica> {
    list.iter().find(|r| r.name == name)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn replica(name: &str, owners: &[&str]) -> Replica {
        Replica {
            name: name.into(),
            url: format!("http://{name}.example:7077"),
            owners: owners.iter().map(|o| (*o).to_owned()).collect(),
            unknown: BTreeMap::new(),
        }
    }

    #[test]
    fn an_owner_s_home_is_the_replica_listing_it_else_the_first() {
        let list = [replica("east", &["agt_a"]), replica("west", &["agt_b"])];
        assert!(check(&list).is_ok());
        let home = |o: &str| home(&list, o).map(|r| r.name.as_str());
        assert_eq!(home("agt_a"), Some("east"));
        assert_eq!(home("agt_b"), Some("west"));
        assert_eq!(home("agt_new"), Some("east"));
        assert_eq!(super::home(&[], "agt_a"), None);
        assert_eq!(named(&list, "west").map(|r| r.owners.len()), Some(1));
        assert!(named(&list, "north").is_none());
    }

    #[test]
    fn the_list_is_read_from_the_root_s_settings() {
        let p = std::path::Path::new("memdir.yaml");
        let s = crate::model::Settings::from_yaml(
            "replicas:\n  - name: east\n    url: https://east.memdir.example\n    \
             owners: [agt_a, agt_b]\n    weight: 2\n  - name: west\n    \
             url: https://west.memdir.example\n",
            p,
        )
        .unwrap();
        let list = s.replicas.as_deref().unwrap();
        assert_eq!(home(list, "agt_b").map(|r| r.name.as_str()), Some("east"));
        assert_eq!(list[1].owners, Vec::<String>::new());
        let w = s.warnings().join("\n");
        assert!(w.contains("`replicas.east.weight`"), "{w}");
        let e = crate::model::Settings::from_yaml(
            "replicas:\n  - {name: a, url: 'http://a', owners: [agt_x]}\n  \
             - {name: b, url: 'http://b', owners: [agt_x]}\n",
            p,
        )
        .unwrap_err();
        assert_eq!(e.code().as_str(), "invalid_config");
    }

    #[test]
    fn a_list_that_gives_an_owner_two_homes_or_a_bad_url_is_refused() {
        let twice = [replica("east", &["agt_a"]), replica("west", &["agt_a"])];
        assert!(check(&twice).unwrap_err().contains("both"));
        let same = [replica("east", &[]), replica("EAST", &[])];
        assert!(check(&same).unwrap_err().contains("named twice"));
        let mut bad = replica("east", &[]);
        bad.url = "ftp://east".into();
        assert!(check(&[bad.clone()]).unwrap_err().contains("http://"));
        bad.url = format!("http://{}", "a".repeat(MAX_URL_BYTES));
        assert!(check(&[bad.clone()]).is_err());
        bad.url = "http://east\n.example".into();
        assert!(check(&[bad]).is_err());
        assert!(check(&[replica("../x", &[])]).is_err());
        assert!(check(&[replica("east", &["agt a"])]).is_err());
        let many: Vec<Replica> = (0..=MAX_REPLICAS)
            .map(|i| replica(&format!("r{i}"), &[]))
            .collect();
        assert!(check(&many).unwrap_err().contains("more than"));
    }
}
