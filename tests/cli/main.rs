//! The single integration-test binary: one module per command, sharing `support`.

mod support;

mod manifest;
mod verify;
