//! The single integration-test binary: one module per command, sharing `support`.

#![allow(
    clippy::unwrap_used,
    reason = "a test fails by panicking; unwrap says where"
)]
#![allow(
    clippy::format_push_string,
    reason = "fixture text reads best built this way"
)]

mod support;

mod action;
mod agent_hooks;
mod agent_runs;
mod amend;
mod archive;
mod bad_input;
mod begin;
mod boundary;
mod commit;
mod compat;
mod config_syntax;
mod context;
mod crash;
mod doctor;
mod hooks;
mod hostile;
mod incremental;
mod index;
mod init;
mod install;
mod instructions;
mod journal;
mod lease;
mod lint;
mod lock;
mod man;
mod manifest;
mod mcp;
mod merge;
mod monorepo;
mod paths;
mod recover;
mod required;
mod review;
mod scenario;
mod session_fixture;
mod stage;
mod status;
mod task;
mod trust;
mod trust_checks;
mod unjudged;
mod verify;
mod verify_range;
