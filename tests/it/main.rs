//! The integration tests, one binary (one build, one link): the real
//! `memdir` binary and the library on real files in temp folders, one module
//! per area. `util` is the shared harness that runs the binary; `common`
//! loads the recall cases.
//!
//! Run one area with `cargo test --test it <module>`, e.g.
//! `cargo test --test it multiprocess -- --nocapture`.

mod common;
mod util;

mod architecture;
mod bounded;
mod browser;
mod channels;
mod cli;
mod clients;
mod contract;
mod dashboard_summaries;
mod daylog_tail;
mod docs_blocks;
mod git;
mod guard;
mod hermes;
mod honest_build;
mod hostile;
mod http;
mod http_bounds;
mod http_limits;
mod http_uploads;
mod journal;
mod learnings;
mod learnings_surfaces;
mod lifecycle;
mod load;
mod mcp;
mod mcp_lines;
mod mcp_listing;
mod memtool;
mod merge_props;
mod multiprocess;
mod not_run;
mod packaging;
mod pending;
mod persons;
mod prompt;
mod python;
mod recall_cases;
mod recall_store;
mod replicas;
mod resolve;
mod results;
mod results_binary;
mod review;
mod review_history;
mod roots;
mod scan_corpus;
mod scan_external;
mod schema;
mod schema_derived;
mod schema_http;
mod semantic;
mod separated;
mod serve_kept;
mod serve_review;
mod settings_bounds;
mod skills;
mod snapshot_escape;
mod snapshot_golden;
mod surfaces;
mod sweep;
mod ui;
mod ui_forms;
mod veto;
mod wheel;
