//! The recall's timing both recall benches share (`benches/recall.rs`,
//! `benches/recall_quality.rs`): criterion's group of the whole recall,
//! the scoring alone and the floor (parsing both stores once), then the
//! same three alternated for `ROUNDS` rounds, their medians returned.

use std::hint::black_box;
use std::time::{Duration, Instant};

use criterion::Criterion;
use memdir::api::types::{Owner, RecallOptions, Scope};
use memdir::internals::markdown::parse;
use memdir::internals::recall::{Bm25Scorer, Scorer};

/// Rounds of the alternated timing.
pub const ROUNDS: usize = 60;

/// The medians of the alternated rounds.
pub struct Medians {
    /// The whole recall.
    pub recall: Duration,
    /// The scoring alone (`score`).
    pub scoring: Duration,
    /// Parsing both stores once.
    pub parse: Duration,
}

/// `Bm25Scorer` scoring `texts` for `query`: the scoring of a lexical
/// recall.
pub fn lexical<'a>(query: &'a str, texts: &'a [&'a str]) -> impl Fn() + 'a {
    move || {
        black_box(
            Bm25Scorer::default()
                .score(query, texts, Instant::now() + Duration::from_secs(5))
                .ok(),
        );
    }
}

/// Times `owner`'s recall of `opts` in criterion's group `group` (the whole
/// recall as `recall_name`), against `score` (the scoring alone) and
/// parsing `memory` and `user` (the two stores' sources), then alternated.
pub fn time(
    group: &str,
    recall_name: &str,
    owner: &Owner,
    opts: &RecallOptions,
    score: &dyn Fn(),
    (memory, user): (&str, &str),
) -> Medians {
    let floor = || (parse(Scope::Memory, memory), parse(Scope::User, user));
    let mut c = Criterion::default()
        .sample_size(30)
        .measurement_time(Duration::from_secs(5))
        .configure_from_args();
    let mut g = c.benchmark_group(group);
    g.bench_function(recall_name, |b| {
        b.iter(|| black_box(owner.recall(opts).expect("recall")))
    });
    g.bench_function("scoring_only", |b| b.iter(score));
    g.bench_function("floor_parse_both_stores", |b| b.iter(|| black_box(floor())));
    g.finish();
    let (mut r, mut s, mut p) = (Vec::new(), Vec::new(), Vec::new());
    for _ in 0..ROUNDS {
        let t = Instant::now();
        black_box(owner.recall(opts).expect("recall"));
        r.push(t.elapsed());
        let t = Instant::now();
        score();
        s.push(t.elapsed());
        let t = Instant::now();
        black_box(floor());
        p.push(t.elapsed());
    }
    Medians {
        recall: median(&mut r),
        scoring: median(&mut s),
        parse: median(&mut p),
    }
}

fn median(v: &mut [Duration]) -> Duration {
    v.sort();
    v[v.len() / 2]
}
