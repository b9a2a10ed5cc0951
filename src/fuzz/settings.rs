//! Target `settings`: `memdir.yaml`, a store's front matter, and the
//! metadata comment of a fact.
//!
//! Input: a control byte (its value modulo 5 picks the part), then text.

use std::path::Path;

use chrono::{DateTime, Duration, Utc};

use super::{Input, now, truncate};
use crate::edit::budget::resolve_budget;
use crate::edit::{Budget, BudgetSource, EditContext, MAX_BUDGET, MIN_BUDGET};
use crate::error::Error;
use crate::markdown::{FileSettings, parse};
use crate::model::settings::{MAX_CONFIG_BYTES, MAX_FRONT_MATTER_BYTES, MAX_YAML_DEPTH};
use crate::model::{Caller, Meta, Scope, Settings, created_at, is_live};

/// The path named in errors.
const PATH: &str = "fuzz/memdir.yaml";

/// Reads the text as one of the parts and checks its properties.
pub fn settings(data: &[u8]) {
    let mut input = Input::new(data);
    let control = input.byte();
    let text = input.rest();
    match control % 5 {
        0 => config(&text),
        1 => front_matter(&text),
        2 => too_deep(control / 5, &text),
        3 => too_big(control / 5, &text),
        _ => metadata(&text),
    }
}

/// A refusal of YAML: `invalid_config`, naming the file.
fn check_refusal(e: &Error) {
    assert_eq!(e.code().as_str(), "invalid_config", "{e}");
    assert!(
        e.to_string().starts_with(PATH),
        "the error names no path: {e}"
    );
}

/// A resolved budget: within 500–20,000, from `source`, and clamped (and
/// saying so) exactly when the value asked for is outside that range.
fn check_budget(b: &Budget, asked: Option<i64>, source: BudgetSource) {
    assert!(
        (MIN_BUDGET..=MAX_BUDGET).contains(&b.limit),
        "budget {b:?} out of range"
    );
    let Some(asked) = asked else { return };
    assert_eq!(b.source, source, "{b:?}");
    let inside = (MIN_BUDGET as i64..=MAX_BUDGET as i64).contains(&asked);
    if inside {
        assert_eq!((b.limit as i64, b.clamped_from), (asked, None), "{b:?}");
    } else {
        assert_eq!(b.clamped_from, Some(asked), "{b:?}");
        let want = if asked < MIN_BUDGET as i64 {
            MIN_BUDGET
        } else {
            MAX_BUDGET
        };
        assert_eq!(b.limit, want, "{b:?}");
    }
}

/// `memdir.yaml`: refused with `invalid_config`, or read; budgets read are
/// clamped into range whichever file they come from; a fact saved under
/// the settings gets metadata that reads back as written.
fn config(text: &str) {
    let path = Path::new(PATH);
    let s = match Settings::from_yaml(text, path) {
        Ok(s) => s,
        Err(e) => return check_refusal(&e),
    };
    let none = FileSettings::default();
    let empty = Settings::default();
    let owner = empty.clone().overlay(&s);
    for scope in [Scope::Memory, Scope::User] {
        let asked = s.budgets.get(scope);
        check_budget(
            &resolve_budget(scope, &s, &empty, &none),
            asked,
            BudgetSource::RootConfig,
        );
        check_budget(
            &resolve_budget(scope, &empty, &owner, &none),
            asked,
            BudgetSource::OwnerConfig,
        );
        if asked.is_none() {
            let b = resolve_budget(scope, &s, &empty, &none);
            assert_eq!(b.limit, scope.default_budget(), "default budget");
        }
        saved_metadata(scope, &s);
    }
}

/// The metadata a fact saved now under settings `s` gets reads back as
/// written, and its expiry is the setting's number of days ahead.
fn saved_metadata(scope: Scope, s: &Settings) {
    let caller = Caller::Agent("agt_fuzz".to_owned());
    let root = Settings::default();
    let cx = EditContext {
        scope,
        caller: &caller,
        run: None,
        now: now(),
        root: &root,
        settings: s,
        path: Path::new(PATH),
        detail: true,
    };
    let expires = match cx.expiry(None) {
        Ok(e) => e,
        Err(e) => panic!("the default expiry: {e}"),
    };
    match s.expiry_days.days(scope) {
        None => assert_eq!(expires, None, "an expiry where the setting says never"),
        Some(d) => {
            let e = expires.unwrap_or_else(|| panic!("no expiry for {d} days"));
            assert!(e > cx.now, "expiry {e} not after now");
            if let Some(exact) = cx.now.checked_add_signed(Duration::days(i64::from(d)))
                && exact.format("%Y").to_string().len() == 4
            {
                assert_eq!(e, exact, "expiry for {d} days");
            }
        }
    }
    let op = crate::edit::Op::add(scope, "x");
    let stamp = match cx.stamp_new(&op) {
        Ok(s) => s,
        Err(e) => panic!("stamping a new fact: {e}"),
    };
    let read = Meta::parse(&stamp);
    assert_eq!(read.created, Some(cx.now), "created, from {stamp}");
    assert_eq!(read.expires, expires, "expires, from {stamp}");
}

/// A store's front matter: read through the markdown parser as a store
/// holds it, refused with `invalid_config` or read with its budget clamped;
/// and the same text as a front matter given directly.
fn front_matter(text: &str) {
    let path = Path::new(PATH);
    let src = format!("---\n{text}\n---\n- an entry\n");
    let doc = parse(Scope::Memory, &src);
    let mut yamls = vec![text.to_owned()];
    if let Some(fm) = &doc.front_matter {
        yamls.push(fm.yaml.clone());
    }
    for yaml in yamls {
        let file = match FileSettings::from_yaml(&yaml, path) {
            Ok(f) => f,
            Err(e) => {
                check_refusal(&e);
                continue;
            }
        };
        let empty = Settings::default();
        let b = resolve_budget(Scope::Memory, &empty, &empty, &file);
        check_budget(&b, file.budget, BudgetSource::FrontMatter);
    }
}

/// The line of `text` for the 33 levels of nesting of `kind`.
fn deep_prefix(kind: u8) -> String {
    let levels = MAX_YAML_DEPTH + 1;
    match kind % 3 {
        0 => "[".repeat(levels),
        1 => (0..=levels)
            .map(|i| format!("{}k{i}:\n", "  ".repeat(i)))
            .collect::<String>(),
        _ => format!("budgets:\n  {}x\n", "- ".repeat(levels)),
    }
}

/// YAML nested deeper than 32 levels is refused before any parser sees it,
/// whatever follows.
fn too_deep(kind: u8, text: &str) {
    let text = format!(
        "{}{}",
        deep_prefix(kind),
        truncate(text.to_owned(), 8 * 1024)
    );
    let path = Path::new(PATH);
    let config = Settings::from_yaml(&text, path).err();
    let file = FileSettings::from_yaml(&text, path).err();
    for e in [config, file] {
        let Some(e) = e else {
            panic!("YAML nested {} levels deep was read", MAX_YAML_DEPTH + 1);
        };
        check_refusal(&e);
        assert!(
            e.to_string().contains("nested more than 32 levels deep"),
            "refused, but not for its depth: {e}"
        );
    }
}

/// YAML over its limit (64 KiB for `memdir.yaml`, 16 KiB for a front
/// matter) is refused for its size; at the limit exactly, never for it.
fn too_big(kind: u8, text: &str) {
    let path = Path::new(PATH);
    let over = kind & 1 == 1;
    for limit in [MAX_CONFIG_BYTES, MAX_FRONT_MATTER_BYTES] {
        let size = if over { limit + 1 } else { limit };
        let mut yaml = truncate(text.to_owned(), size.saturating_sub(2));
        yaml.push_str("\n#");
        while yaml.len() < size {
            yaml.push('x');
        }
        assert_eq!(yaml.len(), size);
        let got = if limit == MAX_CONFIG_BYTES {
            Settings::from_yaml(&yaml, path).err()
        } else {
            FileSettings::from_yaml(&yaml, path).err()
        };
        let for_size = got
            .as_ref()
            .is_some_and(|e| e.to_string().contains("-byte limit"));
        if let Some(e) = &got {
            check_refusal(e);
        }
        assert_eq!(for_size, over, "{size} bytes against {limit}: {got:?}");
    }
}

/// A metadata comment: what memdir renders from what it read reads back
/// the same (so an edit keeps a person's keys), and the quick reads of
/// `expires` and `created` agree with the full parse.
fn metadata(text: &str) {
    let m = Meta::parse(text);
    let rendered = m.render();
    assert_eq!(Meta::parse(&rendered), m, "read back from {rendered:?}");
    assert_eq!(Meta::parse(&rendered).render(), rendered, "rendered twice");
    for comment in [text, rendered.as_str()] {
        let full = Meta::parse(comment);
        assert_eq!(created_at(comment), full.created, "created of {comment:?}");
        let mut times: Vec<DateTime<Utc>> = vec![now()];
        if let Some(e) = full.expires {
            times.push(e);
            times.extend(e.checked_sub_signed(Duration::seconds(1)));
        }
        for t in times {
            assert_eq!(
                is_live(Some(comment), t),
                full.expires.is_none_or(|e| e > t),
                "is_live at {t} of {comment:?}"
            );
        }
    }
}
