//! Build-time tables, so the binary parses and hashes nothing at start-up: the o200k
//! vocabulary (`build/tokens.rs`) and the credential catalogue (`build/catalogue.rs`).

#[path = "build/catalogue.rs"]
mod catalogue;
#[path = "build/tokens.rs"]
mod tokens;

fn main() {
    println!("cargo::rerun-if-changed=build");
    tokens::main();
    catalogue::main();
}
