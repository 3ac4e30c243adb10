//! The single integration-test binary: one module per command, sharing `support`.

mod support;

mod bad_input;
mod compat;
mod manifest;
mod status;
mod verify;
