//! The interface layer: every operation as a [`Request`] and its
//! [`Response`], who asks ([`Who`]), [`execute`] (the one place a request
//! meets the store), the registry of error codes ([`errors`]) and the text
//! and JSON rendering of answers ([`render`]).
//!
//! The command line is a thin adapter over this module: it turns its
//! arguments into a [`Request`], executes it and prints the rendering. Any
//! other surface (a server) does the same with its own transport, so the
//! surfaces share one request/response model and one error presentation.

pub mod args;
pub mod errors;
pub mod guard;
pub mod keys;
mod memtool;
mod model;
pub mod person;
mod preflight;
pub mod reach;
pub mod render;
mod runs;
pub mod schema;
pub mod servers;
mod summaries;
pub mod types;
pub mod wire;

use guard::{AgentText, Guarded, JsonAnswer, PersonAnswer};
pub use model::{Request, Response, RunRef};
pub use preflight::preflight;

use std::time::Duration;

use crate::error::Result;
use crate::model::{Caller, RunContext, Scope, validate_id};
use crate::recall::RecallOptions;
use crate::snapshot::Snapshot;
use crate::store::{FactRow, ListFilter, Omitted, Owner, SearchOptions, Store, StoreView};

/// Who asks: the caller, and the owner it names (an agent may name only
/// itself; a person must name one, except to list every owner's rows).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Who {
    /// The caller.
    pub caller: Caller,
    /// The owner named, if any.
    pub named: Option<String>,
    /// A person asks for the answer's text as the files hold it, flagged
    /// text included (`--raw`, `?raw=true`); otherwise every flagged text
    /// of an answer is its `[BLOCKED: …]` placeholder. An agent cannot ask.
    pub raw: bool,
}

impl Who {
    /// A caller not known yet: the dashboard's visitor redeeming a login
    /// link (whose person the link names). An empty person's id, which
    /// every request naming or needing its caller refuses (`invalid_id`).
    pub fn anonymous() -> Who {
        Who {
            caller: Caller::Person(String::new()),
            named: None,
            raw: false,
        }
    }

    /// The owner this caller acts on.
    pub fn owner(&self, store: &Store) -> Result<Owner> {
        let owner = store.owner_as(&self.caller, self.named.as_deref())?;
        // On a replica, only the owner's home answers for it.
        store.require_home(owner.id())?;
        Ok(owner)
    }

    /// The hashes of the owner's files a page renders forms from, as they
    /// are now: what each form of [`Request::Decide`] carries back.
    pub fn file_hashes(&self, store: &Store) -> Result<crate::store::FileHashes> {
        self.owner(store)?.file_hashes()
    }
}

/// Lints `owners` (all owners of the root when empty), as `memdir check`
/// does ([`Request::Check`]); no owner is needed. An owner named that the
/// root does not hold is `owner_not_found` (a typo would otherwise pass as
/// a clean check), which names the root's other owners unless `caller` is
/// an agent.
fn check(store: &Store, owners: &[String], strict: bool, caller: &Caller) -> Result<Response> {
    let owners = if owners.is_empty() {
        store.owners()?
    } else {
        for id in owners {
            store.require_owner(id, Some(caller))?;
        }
        owners.to_vec()
    };
    // One `git ls-files` for every owner (not a process each).
    let mut reports = store.check_owners(&owners)?;
    // A finding about a file outside every owner's folder (the root's
    // `memdir.yaml`, its `LEARNINGS.md`) is reported once, with the first
    // owner.
    if let Some(first) = reports.first_mut() {
        first.findings.extend(store.check_learnings()?);
    }
    let mut shared = std::collections::BTreeSet::new();
    for r in &mut reports {
        let own = format!("{}/", r.owner);
        r.findings.retain(|f| {
            f.file.starts_with(&own)
                || shared.insert((
                    f.kind,
                    f.file.clone(),
                    f.line,
                    f.id.clone(),
                    f.message.clone(),
                ))
        });
    }
    Ok(Response::Check { reports, strict })
}

/// Marks the entries the snapshot does not show as they are: expired ones,
/// those the scanner blocked, and those past an over-budget store's cut
/// (the last live entries of the store, as the snapshot leaves them out).
fn mark_omitted(stores: &mut [StoreView], snap: &Snapshot) {
    for v in stores {
        let cut = snap
            .over_budget
            .iter()
            .find(|o| o.scope == v.scope)
            .map_or(0, |o| o.omitted);
        let live = v.entries.iter().filter(|e| !e.expired).count();
        let mut seen = 0;
        for e in &mut v.entries {
            e.omitted = if e.expired {
                Some(Omitted::Expired)
            } else {
                seen += 1;
                if seen > live.saturating_sub(cut) {
                    Some(Omitted::OverBudget)
                } else if snap.blocked.iter().any(|b| b.id == e.id) {
                    Some(Omitted::Blocked)
                } else {
                    None
                }
            };
        }
    }
}

/// One finding as a warning line of `show`.
fn finding_line(f: &crate::store::Finding) -> String {
    let at = f.line.map(|l| format!(" line {l}")).unwrap_or_default();
    let id = f.id.as_ref().map(|i| format!(" {i}")).unwrap_or_default();
    format!("{}{at}{id}: {} ({})", f.kind, f.message, f.hint)
}

/// Git's merge driver: merges `base`, `ours` and `theirs` into `ours`
/// (see [`crate::store::merge_file`]); `path` is the file's path in the
/// repository. Needs no store: git runs it on temporary files, so it is no
/// [`Request`] (there is no root to execute one on); its answer still
/// passes the guard.
pub fn merge_file(
    base: &std::path::Path,
    ours: &std::path::Path,
    theirs: &std::path::Path,
    path: Option<&str>,
) -> Result<Guarded<Response>> {
    Ok(guard::guard(Response::Merged(crate::store::merge_file(
        base, ours, theirs, path,
    )?)))
}

/// Creates the root and its `.gitignore` (no owner needed): setup, run by
/// a person before any agent has a memory; its answer passes the guard.
pub fn init(store: &Store) -> Result<Guarded<Response>> {
    Ok(guard::guard(Response::Init(store.init()?)))
}

/// Watches the root until `stop` is set: for each change someone other
/// than memdir makes to an owner's memory file or settings, runs the checks
/// for that file and hands `emit` the rendered findings (a line of JSON
/// with `json`), then refreshes the owner's derived caches (a snapshot
/// rescans what changed). No owner needed. A stream, not one answer, so no
/// [`Request`]: each event is [`AgentText`], its findings guarded.
pub fn watch(
    store: &Store,
    stop: &std::sync::atomic::AtomicBool,
    json: bool,
    emit: &mut dyn FnMut(&AgentText),
) -> Result<()> {
    let mut watching = store.watch()?;
    while !stop.load(std::sync::atomic::Ordering::SeqCst) {
        let Some(changes) = watching.changes(Duration::from_millis(200)) else {
            break;
        };
        for c in changes.into_iter().filter(|c| !c.own) {
            let owner = store.owner(&c.owner)?;
            let suffix = format!("/{}", c.file);
            let findings: Vec<crate::store::Finding> = match owner.check_files() {
                Ok(r) => r
                    .findings
                    .into_iter()
                    .filter(|f| f.file.ends_with(&suffix))
                    .collect(),
                Err(e) => vec![crate::store::Finding {
                    severity: crate::store::Severity::Error,
                    kind: crate::store::FindingKind::Unreadable,
                    file: format!("{}{suffix}", c.owner),
                    line: None,
                    id: None,
                    message: e.to_string(),
                    hint: "fix or restore the file by hand".into(),
                }],
            };
            let mut report = crate::store::CheckReport {
                owner: c.owner.clone(),
                findings,
            };
            guard::guard_findings(&mut report);
            emit(&AgentText::made(
                render::watch_event(&c, &report.findings, json).into_bytes(),
            ));
            let _ = owner.snapshot();
        }
    }
    Ok(())
}

/// Readies an existing root for git, with the pre-commit hook when `hook`
/// (no owner needed).
pub fn git_setup(store: &Store, hook: bool) -> Result<Guarded<Response>> {
    Ok(guard::guard(Response::Init(store.git_setup(hook)?)))
}

/// Executes `request` for `who` on `store`: the one door. The answer
/// passes the guard on its way out ([`guard`]: every file-derived text
/// scanned, a flagged one its `[BLOCKED: …]` placeholder) and is
/// [`Guarded`], the only form the renderers take. `who.raw` is honoured
/// only by [`raw`]; an agent asking for it is refused here too.
pub fn execute(store: &Store, who: &Who, request: Request) -> Result<Guarded<Response>> {
    if who.raw && !who.caller.is_person() {
        return Err(raw_refused());
    }
    Ok(guard::guard(answer(store, who, request)?))
}

/// The one exit for raw text: a person's explicit raw read (`--raw`,
/// `?raw=true`, `who.raw` with [`Caller::Person`]), the answer as the files
/// hold it, flagged text included. An agent, or a person who did not ask,
/// is refused (`usage`): nothing on an agent's path reaches it.
pub fn raw(store: &Store, who: &Who, request: Request) -> Result<PersonAnswer> {
    match (&who.caller, who.raw) {
        (Caller::Person(_), true) => Ok(PersonAnswer::new(answer(store, who, request)?)),
        _ => Err(raw_refused()),
    }
}

/// An answer's JSON form for `who`: guarded ([`execute`]), or a person's
/// raw read ([`raw`]) when the person asked for it.
pub fn json_answer(store: &Store, who: &Who, request: Request) -> Result<JsonAnswer> {
    if who.raw && who.caller.is_person() {
        return Ok(JsonAnswer::Person(render::person_json(&raw(
            store, who, request,
        )?)));
    }
    Ok(JsonAnswer::Agent(render::json(&execute(
        store, who, request,
    )?)))
}

fn raw_refused() -> crate::error::Error {
    crate::error::Error::Usage {
        message: "the raw text is for a person: an agent's answers are scanned".into(),
    }
}

/// The answer to `request`, as the files hold it.
fn answer(store: &Store, who: &Who, request: Request) -> Result<Response> {
    answer_in(store, who, request, None)
}

/// The answer to `request`, as the files hold it, made inside `run` when
/// one is given: each request answered by its feature's function.
fn answer_in(
    store: &Store,
    who: &Who,
    request: Request,
    run: Option<RunContext>,
) -> Result<Response> {
    // Every request but a person's `list` and the learnings acts on one
    // owner; the learnings are the root's.
    let owner = || {
        who.owner(store).map(|o| match &run {
            Some(r) => o.in_run(r.clone()),
            None => o,
        })
    };
    // Each request to its feature's function: the match is exhaustive, so
    // a new request compiles only once it is routed here.
    match request {
        Request::InRun { run: named, within } => {
            if run.is_some() {
                return Err(runs::not_inside());
            }
            let context = runs::context_of(store, who, &named, &within)?;
            answer_in(store, who, *within, context)
        }
        r @ (Request::LoginLink { .. }
        | Request::RedeemLoginLink { .. }
        | Request::ShowLoginLink { .. }
        | Request::Check { .. }
        | Request::AgentSummaries { .. }
        | Request::Sync { .. }
        | Request::StoreView { .. }
        | Request::RecallEntries { .. }
        | Request::CurrentEntries
        | Request::Forget { .. }
        | Request::Propose { .. }
        | Request::Learnings
        | Request::Approve { .. }
        | Request::Reject { .. }
        | Request::Retire { .. }
        | Request::List { .. }) => root_answer(store, who, r),
        r @ (Request::MemoryTool { .. }
        | Request::Write { .. }
        | Request::Batch { .. }
        | Request::Show { .. }
        | Request::Log { .. }
        | Request::Archive { .. }
        | Request::Unarchive { .. }
        | Request::Resolve { .. }
        | Request::Decide { .. }
        | Request::Renew { .. }
        | Request::Veto { .. }
        | Request::Recall { .. }
        | Request::PendingList { .. }
        | Request::PendingShow { .. }
        | Request::PendingApprove { .. }
        | Request::PendingReject { .. }) => memory_answer(&owner, r),
        r @ (Request::Snapshot
        | Request::BeginRun { .. }
        | Request::FinishRun { .. }
        | Request::Day { .. }
        | Request::SearchRuns { .. }
        | Request::GetRun { .. }
        | Request::ListRuns { .. }) => runs_answer(who, run.as_ref(), &owner, r),
        r @ (Request::PutResult { .. }
        | Request::GetResult { .. }
        | Request::WorkflowResults { .. }
        | Request::WaitResult { .. }
        | Request::RemoveResults { .. }
        | Request::GcResults { .. }) => results_answer(&owner, r),
        r @ (Request::Review { .. }
        | Request::ReviewStatus
        | Request::ReviewHistory { .. }
        | Request::ReviewPause { .. }
        | Request::ApplyReview { .. }
        | Request::UndoReview { .. }) => review_answer(&owner, r),
        r @ (Request::SkillLearn { .. }
        | Request::SkillList
        | Request::SkillShow { .. }
        | Request::SkillForget { .. }
        | Request::ImportHermes { .. }
        | Request::ExportHermes { .. }) => skills_answer(&owner, r),
    }
}

/// A request a feature's function was handed but does not answer:
/// [`answer_in`]'s routing and the feature's own match disagree (a bug of
/// this module, never the caller's doing).
fn misrouted() -> crate::error::Error {
    crate::error::Error::Usage {
        message: "a request no feature answers".into(),
    }
}

/// An owner opened for the request (inside its run, if any).
type OwnerOf<'a> = &'a dyn Fn() -> Result<Owner>;

/// The root's requests and those that read across owners: logins, `check`,
/// `sync`, the servers' views, the learnings, a list.
fn root_answer(store: &Store, who: &Who, request: Request) -> Result<Response> {
    let caller = &who.caller;
    Ok(match request {
        Request::LoginLink { keys } => {
            let path = crate::store::keys::keys_path(store, keys.as_deref())?;
            Response::LoginLink(crate::store::keys::create_link(store, &path, caller)?)
        }
        Request::RedeemLoginLink { token, keys } => {
            let path = crate::store::keys::keys_path(store, keys.as_deref())?;
            Response::LoginRedeemed {
                person: crate::store::keys::redeem_link(store, &path, &token)?,
            }
        }
        Request::ShowLoginLink { token, keys } => {
            let path = crate::store::keys::keys_path(store, keys.as_deref())?;
            let (person, expires) = crate::store::keys::peek_link(store, &path, &token)?;
            Response::LoginLinkShown { person, expires }
        }
        Request::Check { owners, strict } => check(store, &owners, strict, &who.caller)?,
        Request::AgentSummaries { sort, page, limit } => {
            Response::AgentSummaries(summaries::answer(store, who, sort, page, limit)?)
        }
        Request::Sync { remote } => {
            // A caller not known (the command line with no identity)
            // commits as `memdir`.
            let known = match caller {
                Caller::Person(p) if p.is_empty() => None,
                Caller::Agent(_) | Caller::Person(_) => Some(caller),
            };
            Response::Sync(store.sync(known, remote.as_deref())?)
        }
        Request::StoreView { scope } => {
            Response::StoreView(servers::store_view(store, who, scope)?)
        }
        Request::RecallEntries { query, limit } => Response::Entries(servers::recall_entries(
            store,
            who,
            query.as_deref(),
            limit,
        )?),
        Request::CurrentEntries => Response::CurrentEntries(servers::current_entries(store, who)?),
        Request::Forget { key } => Response::Written(servers::forget(store, who, &key)?),
        Request::Propose { text } => Response::Learning(store.propose(caller, &text)?),
        Request::Learnings => Response::Learnings(store.learnings(caller)?),
        Request::Approve {
            id,
            text,
            seen_text,
        } => Response::Learning(store.approve_learning(
            caller,
            &id,
            text.as_deref(),
            seen_text.as_deref(),
        )?),
        Request::Reject { id, reason } => {
            Response::Learning(store.reject_learning(caller, &id, &reason)?)
        }
        Request::Retire { id, reason } => {
            Response::Learning(store.retire_learning(caller, &id, reason.as_deref())?)
        }
        Request::List {
            kind,
            status,
            all,
            limit,
        } => {
            let filter = ListFilter {
                kind,
                status,
                all,
                limit,
            };
            let (rows, total) = list(store, who, &filter)?;
            Response::Rows {
                rows,
                total,
                limit: filter.limit(),
            }
        }
        _ => return Err(misrouted()),
    })
}

/// An owner's stores and their facts' lifecycle, the writes that wait for
/// a person, recall and the memory tool.
fn memory_answer(owner: OwnerOf<'_>, request: Request) -> Result<Response> {
    Ok(match request {
        Request::MemoryTool {
            input,
            skills_writable,
        } => Response::MemoryTool(memtool::answer(&owner()?, &input, skills_writable)?),
        Request::Write { op } => Response::Written(owner()?.write(op)?),
        Request::Batch { ops } => Response::Batch(owner()?.batch(&ops)?),
        Request::Show { scope } => show(&owner()?, scope)?,
        Request::Log { id, since, limit } => {
            Response::Log(owner()?.log(&crate::store::LogOptions { id, since, limit })?)
        }
        Request::Archive { id, reason } => Response::Transition(owner()?.archive(&id, &reason)?),
        Request::Unarchive { id } => Response::Transition(owner()?.unarchive(&id)?),
        Request::Resolve { id, keep } => Response::Transition(owner()?.resolve(&id, keep)?),
        Request::Decide {
            file,
            sha256,
            decision,
        } => match owner()?.decide(file, &sha256, decision)? {
            crate::store::Decided::Written(w) => Response::Written(w),
            crate::store::Decided::Transition(t) => Response::Transition(t),
            crate::store::Decided::Renewed(r) => Response::Renewed(r),
        },
        Request::Renew { id, expires } => {
            Response::Renewed(owner()?.renew(&id, expires.as_deref())?)
        }
        Request::Veto { id, reason } => {
            Response::Transition(owner()?.veto(&id, reason.as_deref())?)
        }
        Request::PendingList { all } => Response::Pending(owner()?.pending(all)?),
        Request::PendingShow { id } => Response::PendingShown(owner()?.pending_write(&id)?),
        Request::PendingApprove { id, text } => {
            Response::PendingDecided(owner()?.approve_pending(&id, text.as_deref())?)
        }
        Request::PendingReject { id, reason } => {
            Response::PendingDecided(owner()?.reject_pending(&id, &reason)?)
        }
        Request::Recall {
            query,
            session,
            on_demand,
            preview,
        } => {
            let mut opts = RecallOptions {
                query,
                ..RecallOptions::default()
            };
            if let Some(s) = session {
                opts = opts.session(s);
            }
            if on_demand {
                opts = opts.on_demand();
            }
            if preview {
                opts = opts.preview();
            }
            Response::Recall(owner()?.recall(&opts)?)
        }
        _ => return Err(misrouted()),
    })
}

/// Runs and the day log (a day line inside a run is the run's).
fn runs_answer(
    who: &Who,
    run: Option<&RunContext>,
    owner: OwnerOf<'_>,
    request: Request,
) -> Result<Response> {
    Ok(match request {
        Request::Snapshot => Response::Snapshot(match run {
            Some(r) => runs::frozen_snapshot(&owner()?, r)?,
            None => owner()?.snapshot()?,
        }),
        Request::BeginRun {
            task,
            skills,
            workflow,
            session,
        } => runs::begin(&owner()?, task, skills, workflow, session)?,
        Request::FinishRun { run: named, text } => runs::finish(&owner()?, who, named, text)?,
        Request::Day {
            line,
            task,
            run: day_run,
        } => {
            // Inside a run, a day line is the run's.
            let day_run = day_run.or_else(|| run.map(|r| r.id.clone()));
            Response::Day(owner()?.day(&line, task.as_deref(), day_run.as_deref())?)
        }
        Request::SearchRuns {
            query,
            since,
            until,
            limit,
        } => Response::RunHits(owner()?.runs().search(
            &query,
            &SearchOptions {
                since,
                until,
                limit,
            },
        )?),
        Request::GetRun { run_id } => Response::Run(owner()?.runs().get(&run_id)?),
        Request::ListRuns { open } => Response::Runs(owner()?.runs().list(open)?),
        _ => return Err(misrouted()),
    })
}

/// SharedMemory results.
fn results_answer(owner: OwnerOf<'_>, request: Request) -> Result<Response> {
    Ok(match request {
        Request::PutResult {
            workflow_id,
            task_id,
            content,
            content_type,
            overwrite,
            allow_empty,
            limit,
        } => {
            let options = crate::store::PutOptions {
                content_type,
                overwrite,
                allow_empty,
                limit,
            };
            let out = owner()?
                .results()
                .put_with(&workflow_id, &task_id, &content, &options)?;
            Response::Put(out)
        }
        Request::GetResult {
            workflow_id,
            task_id,
        } => Response::Result(owner()?.results().get(&workflow_id, &task_id)?),
        Request::WorkflowResults { workflow_id } => {
            Response::Steps(owner()?.results().workflow(&workflow_id)?)
        }
        Request::WaitResult {
            workflow_id,
            task_id,
            timeout_secs,
        } => Response::Result(owner()?.results().wait(
            &workflow_id,
            &task_id,
            Duration::from_secs_f64(timeout_secs.clamp(0.0, 86_400.0)),
        )?),
        Request::RemoveResults {
            workflow_id,
            task_id,
        } => Response::ResultsRemoved(
            owner()?
                .results()
                .remove(&workflow_id, task_id.as_deref())?,
        ),
        Request::GcResults { older_than_days } => {
            Response::ResultsGc(owner()?.results().gc(older_than_days)?)
        }
        _ => return Err(misrouted()),
    })
}

/// The daily review.
fn review_answer(owner: OwnerOf<'_>, request: Request) -> Result<Response> {
    Ok(match request {
        Request::Review {
            dry_run,
            due,
            reviewer,
        } => {
            let opts = crate::store::ReviewOptions {
                dry_run,
                due,
                reviewer,
            };
            let owner = owner()?;
            let answer = if due && !dry_run {
                Response::ReviewDue(owner.reviews().due(&opts)?)
            } else {
                Response::Review(owner.reviews().run(&opts)?)
            };
            // The review computes the vectors semantic recall lacks (best
            // effort: recall scores a fact without one lexically).
            #[cfg(feature = "embed")]
            if !dry_run && !matches!(&answer, Response::ReviewDue(d) if d.ran.is_none()) {
                let _ = owner.embed_missing();
            }
            answer
        }
        Request::ReviewStatus => Response::Routine(owner()?.reviews().status()?),
        Request::ReviewHistory { limit } => {
            Response::ReviewHistory(owner()?.reviews().history(limit)?)
        }
        Request::ReviewPause { paused } => Response::Routine(owner()?.reviews().pause(paused)?),
        Request::ApplyReview { id } => Response::Review(owner()?.reviews().apply(&id)?),
        Request::UndoReview { id, partial } => {
            Response::Undone(owner()?.reviews().undo(&id, partial)?)
        }
        _ => return Err(misrouted()),
    })
}

/// Learned skills and Hermes-style memories folders.
fn skills_answer(owner: OwnerOf<'_>, request: Request) -> Result<Response> {
    Ok(match request {
        Request::SkillLearn {
            name,
            source,
            description,
            replace,
        } => Response::Skill(owner()?.skills().learn(
            &name,
            &source,
            description.as_deref(),
            replace,
        )?),
        Request::SkillList => Response::Skills(owner()?.skills().list()?),
        Request::SkillShow { name } => Response::SkillShown(owner()?.skills().get(&name)?),
        Request::SkillForget { name } => Response::Skill(owner()?.skills().forget(&name)?),
        Request::ImportHermes {
            dir,
            partial,
            dry_run,
        } => Response::Imported(
            owner()?
                .hermes()
                .import(&dir, crate::store::ImportOptions { partial, dry_run })?,
        ),
        Request::ExportHermes {
            dir,
            force,
            dry_run,
        } => Response::Exported(owner()?.hermes().export(&dir, force, dry_run)?),
        _ => return Err(misrouted()),
    })
}

/// `show`: the stores named (default both) with what `check` finds about
/// them and the entries the snapshot leaves out marked.
fn show(owner: &Owner, scope: Option<Scope>) -> Result<Response> {
    let scopes = scope.map_or(Scope::ALL.to_vec(), |s| vec![s]);
    let mut stores = scopes
        .iter()
        .map(|s| owner.show(*s))
        .collect::<Result<Vec<_>>>()?;
    // What `check` finds shows as warnings: a store's findings with
    // that store, the others (settings, archive.md, episodes.md)
    // with the first store shown.
    let report = owner.check_files()?;
    let of_store = |f: &crate::store::Finding, file: &str| f.file.ends_with(&format!("/{file}"));
    for (i, v) in stores.iter_mut().enumerate() {
        for f in &report.findings {
            let mine = of_store(f, v.file);
            // A finding about one entry shows with it (the first of
            // its id), once; the others with the store.
            let entry = v
                .entries
                .iter_mut()
                .find(|e| mine && f.id.as_deref() == Some(e.id.as_str()));
            if let Some(e) = entry {
                e.warnings
                    .push(format!("{}: {} ({})", f.kind, f.message, f.hint));
            } else if mine || (i == 0 && !Scope::ALL.iter().any(|s| of_store(f, s.file_name()))) {
                v.warnings.push(finding_line(f));
            }
        }
    }
    mark_omitted(&mut stores, &owner.snapshot()?);
    Ok(Response::Show {
        owner: owner.id().to_owned(),
        stores,
    })
}

/// The rows of one owner, or of every owner for a person who named none.
fn list(store: &Store, who: &Who, filter: &ListFilter) -> Result<(Vec<FactRow>, usize)> {
    if who.caller.is_person() && who.named.is_none() {
        let mut rows = Vec::new();
        let every = ListFilter {
            limit: Some(usize::MAX),
            ..filter.clone()
        };
        for id in store.owners()? {
            let (mine, _) = store
                .owner_as(&who.caller, Some(&id))?
                .list_counted(&every)?;
            rows.extend(mine);
        }
        let total = filter.finish(&mut rows);
        return Ok((rows, total));
    }
    who.owner(store)?.list_counted(filter)
}

/// The largest result a put for `who` accepts, after checking the ids (so a
/// caller reading the content from a stream can refuse bad ids before it
/// reads, and read at most this many bytes plus one).
pub fn result_limit(store: &Store, who: &Who, workflow_id: &str, task_id: &str) -> Result<u64> {
    let owner = who.owner(store)?;
    validate_id("workflow", workflow_id)?;
    validate_id("task", task_id)?;
    owner.results().max_bytes()
}

/// Stores a result whose content is read from `content` as it arrives
/// (standard input, a file, an upload), never held whole in memory: the
/// streaming form of [`Request::PutResult`], with its rules and answer
/// ([`Response::Put`]), which passes the guard as `execute`'s do. It is no
/// [`Request`] because a request is a value and the content is a stream.
/// `source` names the reader in an I/O error.
pub fn put_result_from(
    store: &Store,
    who: &Who,
    (workflow_id, task_id): (&str, &str),
    options: &crate::store::PutOptions,
    content: &mut dyn std::io::Read,
    source: &str,
) -> Result<Guarded<Response>> {
    if who.raw && !who.caller.is_person() {
        return Err(raw_refused());
    }
    let out =
        who.owner(store)?
            .results()
            .put_from(workflow_id, task_id, content, source, options)?;
    Ok(guard::guard(Response::Put(out)))
}
