//! The batch format: a JSON list of operations as `memdir batch` reads it.
//!
//! `in` names the store of every operation, with `to`, `target` and `scope`
//! accepted as aliases (two that disagree are a `usage` error); an
//! operation takes only its own fields; operations are numbered from 1 in
//! what a failure says.

use serde::{Deserialize, Deserializer};

use super::Op;
use crate::error::{Error, Result};
use crate::model::Scope;

/// The operation an entry of a batch names.
#[derive(Debug, Clone, Copy, Deserialize)]
#[serde(rename_all = "lowercase")]
enum Kind {
    Add,
    Replace,
    Remove,
}

impl Kind {
    fn name(self) -> &'static str {
        match self {
            Kind::Add => "add",
            Kind::Replace => "replace",
            Kind::Remove => "remove",
        }
    }
}

/// One operation as written, before its fields are checked against its
/// kind.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawOp {
    op: Kind,
    #[serde(default)]
    text: Option<String>,
    #[serde(default)]
    old: Option<String>,
    #[serde(default)]
    new: Option<String>,
    #[serde(default, rename = "in")]
    in_: Option<Scope>,
    #[serde(default)]
    to: Option<Scope>,
    #[serde(default)]
    target: Option<Scope>,
    #[serde(default)]
    scope: Option<Scope>,
    #[serde(default)]
    expires: Option<String>,
    #[serde(default)]
    supersedes: Option<String>,
}

/// Why an operation as written is not one.
#[derive(Debug, PartialEq, Eq)]
enum Invalid {
    /// A field missing, or one its kind does not take.
    Shape(String),
    /// Two names of the store that name different stores.
    Disagree(String),
}

impl Invalid {
    fn message(self) -> String {
        match self {
            Invalid::Shape(m) | Invalid::Disagree(m) => m,
        }
    }
}

impl RawOp {
    /// The store the operation names, under any of its four names.
    fn store(&self) -> std::result::Result<Option<Scope>, Invalid> {
        let names = [
            ("in", self.in_),
            ("to", self.to),
            ("target", self.target),
            ("scope", self.scope),
        ];
        let mut named: Option<(&str, Scope)> = None;
        for (name, s) in names {
            let Some(s) = s else { continue };
            match named {
                None => named = Some((name, s)),
                Some((first, f)) if f != s => {
                    return Err(Invalid::Disagree(format!(
                        "`{first}` says {} but `{name}` says {}: name the store once, with `in`",
                        f.name(),
                        s.name()
                    )));
                }
                Some(_) => {}
            }
        }
        Ok(named.map(|(_, s)| s))
    }

    fn into_op(self) -> std::result::Result<Op, Invalid> {
        let scope = self.store()?;
        let kind = self.op.name();
        let missing = |field: &str| Invalid::Shape(format!("`{kind}` needs `{field}`"));
        let takes_no = |fields: &[(&str, bool)]| {
            fields.iter().find(|(_, present)| *present).map(|(f, _)| {
                Invalid::Shape(format!(
                    "`{kind}` takes no `{f}` (it takes {})",
                    match self.op {
                        Kind::Add => "`text`, `in`, `expires`, `supersedes`",
                        Kind::Replace => "`old`, `new`, `in`",
                        Kind::Remove => "`old`, `in`",
                    }
                ))
            })
        };
        match self.op {
            Kind::Add => {
                if let Some(e) =
                    takes_no(&[("old", self.old.is_some()), ("new", self.new.is_some())])
                {
                    return Err(e);
                }
                Ok(Op::Add {
                    text: self.text.ok_or_else(|| missing("text"))?,
                    scope: scope.unwrap_or(Scope::Memory),
                    expires: self.expires,
                    supersedes: self.supersedes,
                })
            }
            Kind::Replace => {
                if let Some(e) = takes_no(&[
                    ("text", self.text.is_some()),
                    ("expires", self.expires.is_some()),
                    ("supersedes", self.supersedes.is_some()),
                ]) {
                    return Err(e);
                }
                Ok(Op::Replace {
                    old: self.old.ok_or_else(|| missing("old"))?,
                    new: self.new.ok_or_else(|| missing("new"))?,
                    scope,
                })
            }
            Kind::Remove => {
                if let Some(e) = takes_no(&[
                    ("text", self.text.is_some()),
                    ("new", self.new.is_some()),
                    ("expires", self.expires.is_some()),
                    ("supersedes", self.supersedes.is_some()),
                ]) {
                    return Err(e);
                }
                Ok(Op::Remove {
                    old: self.old.ok_or_else(|| missing("old"))?,
                    scope,
                })
            }
        }
    }
}

impl<'de> Deserialize<'de> for Op {
    fn deserialize<D: Deserializer<'de>>(d: D) -> std::result::Result<Op, D::Error> {
        RawOp::deserialize(d)?
            .into_op()
            .map_err(|e| serde::de::Error::custom(e.message()))
    }
}

impl Op {
    /// Reads a batch: a JSON list of operations. Input that is no such list
    /// is `invalid_request`; an operation missing a field or carrying one
    /// its kind does not take is `invalid_request` naming the operation
    /// (from 1); one whose store names disagree is `usage`.
    pub fn parse_list(input: &str) -> Result<Vec<Op>> {
        let raw: Vec<RawOp> =
            serde_json::from_str(input).map_err(|source| Error::InvalidBatch { source })?;
        raw.into_iter()
            .enumerate()
            .map(|(index, r)| {
                r.into_op().map_err(|e| Error::Batch {
                    index,
                    source: Box::new(match e {
                        Invalid::Disagree(message) => Error::Usage { message },
                        Invalid::Shape(m) => Error::InvalidBatch {
                            source: serde::de::Error::custom(m),
                        },
                    }),
                })
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(s: &str) -> Result<Vec<Op>> {
        Op::parse_list(s)
    }

    #[test]
    fn every_operation_takes_in_and_its_aliases() {
        for name in ["in", "to", "target", "scope"] {
            let ops = parse(&format!(
                r#"[{{"op":"add","text":"t","{name}":"user"}},
                    {{"op":"replace","old":"a","new":"b","{name}":"user"}},
                    {{"op":"remove","old":"x","{name}":"user"}}]"#
            ))
            .unwrap();
            assert!(
                ops.iter().all(|o| o.scope() == Some(Scope::User)),
                "{name}: {ops:?}"
            );
        }
        // Two names that agree are one.
        let ops = parse(r#"[{"op":"remove","old":"x","in":"user","to":"user"}]"#).unwrap();
        assert_eq!(ops[0].scope(), Some(Scope::User));
    }

    #[test]
    fn no_store_named_is_none_but_add_defaults_to_memory() {
        let ops = parse(
            r#"[{"op":"add","text":"t"},{"op":"replace","old":"a","new":"b"},{"op":"remove","old":"x"}]"#,
        )
        .unwrap();
        assert_eq!(ops[0].scope(), Some(Scope::Memory));
        assert_eq!(ops[1].scope(), None);
        assert_eq!(ops[2].scope(), None);
    }

    #[test]
    fn disagreeing_store_names_are_a_usage_error_numbered_from_one() {
        let e = parse(
            r#"[{"op":"add","text":"t"},{"op":"replace","old":"a","new":"b","in":"user","target":"memory"}]"#,
        )
        .unwrap_err();
        assert_eq!(e.code().as_str(), "usage");
        assert!(matches!(e, Error::Batch { index: 1, .. }), "{e:?}");
        let msg = e.to_string();
        assert!(msg.starts_with("batch operation 2: "), "{msg}");
        assert!(
            msg.contains("`in` says user but `target` says memory"),
            "{msg}"
        );
    }

    #[test]
    fn fields_of_another_operation_and_missing_ones_are_refused() {
        for (bad, says) in [
            (r#"[{"op":"add"}]"#, "`add` needs `text`"),
            (r#"[{"op":"replace","old":"a"}]"#, "`replace` needs `new`"),
            (
                r#"[{"op":"remove","old":"a","new":"b"}]"#,
                "`remove` takes no `new`",
            ),
            (
                r#"[{"op":"add","text":"t","old":"a"}]"#,
                "`add` takes no `old`",
            ),
        ] {
            let e = parse(bad).unwrap_err();
            assert_eq!(e.code().as_str(), "invalid_request", "{bad}");
            assert!(e.to_string().contains(says), "{bad}: {e}");
        }
        for bad in [
            "",
            "{}",
            r#"[{"op":"bogus","text":"x"}]"#,
            r#"[{"op":"add","text":"x","bogus":1}]"#,
            r#"[{"op":"add","text":"x","to":"elsewhere"}]"#,
        ] {
            assert_eq!(
                parse(bad).unwrap_err().code().as_str(),
                "invalid_request",
                "{bad}"
            );
        }
    }

    #[test]
    fn serde_reads_one_operation_as_the_batch_does() {
        let op: Op = serde_json::from_str(r#"{"op":"remove","old":"x","target":"user"}"#).unwrap();
        assert_eq!(op.scope(), Some(Scope::User));
        assert!(
            serde_json::from_str::<Op>(r#"{"op":"remove","old":"x","in":"user","to":"memory"}"#)
                .is_err()
        );
    }
}
