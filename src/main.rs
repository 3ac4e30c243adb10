//! The `git-aahp` binary: parse the command line, run the library, map the result to an exit
//! code. Everything else lives in the `git_aahp` library.

use std::process::ExitCode;

fn main() -> ExitCode {
    git_aahp::main_entry()
}
