//! The single integration-test binary: one module per command, sharing `support`.

mod support;

mod lint;
mod manifest;
