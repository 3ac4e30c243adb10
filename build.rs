//! Build-time tables, so the binary parses and hashes nothing at start-up: the o200k
//! vocabulary (`build/tokens.rs`) and the credential catalogue (`build/catalogue.rs`); and
//! packed relocations where the platform has them, so it starts faster (`build/relr.rs`).

#[path = "build/catalogue.rs"]
mod catalogue;
#[path = "build/relr.rs"]
mod relr;
#[path = "build/tokens.rs"]
mod tokens;

fn main() {
    println!("cargo::rerun-if-changed=build");
    tokens::main();
    catalogue::main();
    relr::main();
}
