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

mod archive;
mod bad_input;
mod compat;
mod manifest;
mod status;
mod trust;
mod verify;
