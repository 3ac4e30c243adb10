#!/usr/bin/env bash
# Speed figures for `git aahp lint` (issue #3): builds the default benchmark fixture with
# bench/make_fixture.py, then reports
#   - the median time to lint the whole fixture (in memory, and including reads),
#   - throughput on the concatenated negative corpora (one core),
#   - end to end `git-aahp lint` on the fixture when hyperfine is installed.
# usage: bench/lint.sh            (run from anywhere inside the crate)
set -euo pipefail
cd "$(dirname "$0")/.."
out=bench/out
rm -rf "$out/fixture" && mkdir -p "$out"
python3 bench/make_fixture.py "$out/fixture" >/dev/null
cargo bench --quiet --bench lint -- "$out/fixture" tests/corpora
if command -v hyperfine >/dev/null 2>&1; then
  cargo build --quiet --release
  bin="$PWD/target/release/git-aahp"
  (cd "$out/fixture" && hyperfine -N --warmup 5 --runs 50 "$bin lint" "$bin lint --staged")
fi
