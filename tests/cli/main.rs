//! The single integration-test binary: one module per command, sharing `support`.

mod support;

mod archive;
mod bad_input;
mod compat;
mod manifest;
mod status;
mod trust;
mod verify;
