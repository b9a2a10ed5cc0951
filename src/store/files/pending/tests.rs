use std::path::Path;

use chrono::Utc;

use super::*;

fn asker(source: PendingSource) -> Asker {
    Asker {
        agent: "agt_a".into(),
        run: Some(("run_1".into(), Some("PIN-7".into()))),
        source,
        now: Utc::now(),
    }
}

#[test]
fn a_waiting_write_reads_back_as_the_operations_it_was_made_of() {
    let p = Path::new("PENDING.md");
    let ops = [
        Op::Add {
            text: "Deploys  go out on Tuesdays".into(),
            scope: Scope::User,
            expires: Some("30d".into()),
            supersedes: Some("mem_0123456789ab".into()),
        },
        Op::Replace {
            old: "the old standup time".into(),
            new: "Standups are at nine".into(),
            scope: None,
        },
        Op::Remove {
            old: "mem_aaaaaaaaaaaa".into(),
            scope: Some(Scope::Memory),
        },
    ];
    let staging: Vec<Staging<'_>> = ops
        .iter()
        .enumerate()
        .map(|(i, op)| Staging {
            op,
            archive: (i == 2).then(|| "memory tool".to_owned()),
        })
        .collect();
    let a = asker(PendingSource::Batch);
    let id = new_id(&a, &staging);
    assert!(is_pending_id(&id), "{id}");
    let out = append("", p, &id, &staging, &a).unwrap();
    assert!(out.starts_with("# Pending\n"), "{out}");
    let read = parts(&out);
    assert_eq!(read.len(), 3, "{out}");
    assert_eq!(
        read[0].op,
        Op::Add {
            text: "Deploys  go out on Tuesdays".into(),
            scope: Scope::User,
            expires: Some("30d".into()),
            supersedes: Some("mem_0123456789ab".into()),
        }
    );
    assert_eq!(read[1].op, ops[1]);
    assert_eq!(read[2].op, ops[2]);
    assert_eq!(read[2].archive.as_deref(), Some("memory tool"));
    for part in &read {
        assert_eq!(part.group, id, "one write: {out}");
        assert_eq!(part.status, PendingStatus::Pending);
        assert_eq!(part.source, PendingSource::Batch);
        assert_eq!(part.meta.agent.as_deref(), Some("agt_a"));
        assert_eq!(part.meta.run.as_deref(), Some("run_1"));
        assert_eq!(part.meta.task.as_deref(), Some("PIN-7"));
    }
    assert_eq!(read[0].id, id);
    assert_ne!(read[1].id, id);
    // A second write goes after the first; taking the first out leaves the
    // second and the heading as they were.
    let single = [Op::add(Scope::Memory, "Invoices go out on the first")];
    let staging: Vec<Staging<'_>> = single
        .iter()
        .map(|op| Staging { op, archive: None })
        .collect();
    let b = asker(PendingSource::Write);
    let second = new_id(&b, &staging);
    assert_ne!(second, id);
    let both = append(&out, p, &second, &staging, &b).unwrap();
    assert_eq!(parts(&both).len(), 4);
    let left = remove(&both, p, &id).unwrap().unwrap();
    let rest = parts(&left);
    assert_eq!(rest.len(), 1, "{left}");
    assert_eq!(rest[0].group, second);
    assert!(left.starts_with("# Pending\n"), "{left}");
    assert!(remove(&left, p, &id).unwrap().is_none());
}

#[test]
fn a_rejection_marks_the_write_and_refuses_its_text_by_the_vetos_fold() {
    let p = Path::new("PENDING.md");
    let ops = [Op::add(Scope::Memory, "Tabs are better than spaces")];
    let staging: Vec<Staging<'_>> = ops.iter().map(|op| Staging { op, archive: None }).collect();
    let a = asker(PendingSource::Write);
    let id = new_id(&a, &staging);
    let src = append("", p, &id, &staging, &a).unwrap();
    assert!(
        Rejections::of(&src)
            .refusal("Tabs are better than spaces")
            .is_none()
    );
    let now = Utc::now();
    let out = reject(&src, p, &id, "ann", "a matter of taste", now)
        .unwrap()
        .unwrap();
    let read = parts(&out);
    assert_eq!(read[0].status, PendingStatus::Rejected);
    assert_eq!(read[0].meta.reason.as_deref(), Some("a matter of taste"));
    assert_eq!(read[0].other("decided_by"), Some("person:ann"));
    assert_eq!(read[0].id, id, "the id stays");
    let r = Rejections::of(&out);
    for same in [
        "Tabs are better than spaces",
        "tabs are better than spaces.",
        "TABS  are better than spaces!",
    ] {
        match r.refusal(same) {
            Some(Error::PendingRejected { id: got, .. }) => assert_eq!(got, id),
            other => panic!("{same}: {other:?}"),
        }
    }
    assert!(r.refusal("Spaces are better than tabs").is_none());
    assert!(
        reject(&out, p, "pnd_000000000000", "ann", "x", now)
            .unwrap()
            .is_none()
    );
}

#[test]
fn an_entry_that_names_no_operation_is_no_waiting_write() {
    let src = "# Pending\n\n- a person's note\n- x <!-- memdir op=rename -->\n";
    assert!(parts(src).is_empty());
}
