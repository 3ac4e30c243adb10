#!/usr/bin/env bash
# Benchmarks the commands a user feels, on the fixture `../shared/bench/make_fixture.py`
# builds (the one the AAHP reference was measured on: manifest 332 ms, verify --level
# precommit 298 ms, ~70 processes). Prints a Markdown table and writes it to
# bench/out/results.md. Not a test: timings never gate CI.
#
# usage: bench/run.sh [--quick]      (--quick: fewer runs, skips the 100,000-file repository)
# needs: cargo, git, python3, hyperfine (apt-get install hyperfine), strace (optional)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(dirname "$here")
fixture_py=${AAHP_FIXTURE:-$root/../shared/bench/make_fixture.py}
runs=30
big=1
[ "${1:-}" = "--quick" ] && { runs=10; big=0; }

command -v hyperfine >/dev/null || { echo "bench: hyperfine is missing (apt-get install hyperfine)" >&2; exit 2; }
[ -f "$fixture_py" ] || { echo "bench: fixture generator not found at $fixture_py" >&2; exit 2; }

cargo build --release --locked --quiet --manifest-path "$root/Cargo.toml"
bin="$root/target/release/git-aahp"
out="$root/bench/out"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$out"

export GIT_CONFIG_GLOBAL=/dev/null GIT_CONFIG_NOSYSTEM=1 GIT_AUTHOR_NAME=bench GIT_AUTHOR_EMAIL=bench@example.com \
  GIT_COMMITTER_NAME=bench GIT_COMMITTER_EMAIL=bench@example.com
unset GIT_DIR GIT_INDEX_FILE GIT_WORK_TREE
# No background `git gc --auto` / maintenance: it would compete with the timings and race the
# clean-up of the work directory.
export GIT_CONFIG_COUNT=2 GIT_CONFIG_KEY_0=gc.auto GIT_CONFIG_VALUE_0=0 \
  GIT_CONFIG_KEY_1=maintenance.auto GIT_CONFIG_VALUE_1=false

# A fixture with a manifest committed, then a realistic commit staged: 3 source files plus the
# handoff update that goes with them (STATUS.md edited, manifest regenerated).
prepare() { # DIR EXTRA-ARGS...
  local dir=$1; shift
  python3 "$fixture_py" "$dir" --staged-code 3 "$@" >/dev/null
  git -C "$dir" stash -q
  (cd "$dir" && "$bin" manifest -q)
  git -C "$dir" add -A && git -C "$dir" commit -q -m "handoff manifest"
  git -C "$dir" stash pop -q
  printf '\nSession note: three modules bumped.\n' >> "$dir/.ai/handoff/STATUS.md"
  (cd "$dir" && "$bin" manifest -q --agent bench)
  git -C "$dir" add -A
}

median() { python3 -c 'import json,sys; print("%.1f" % (json.load(open(sys.argv[1]))["results"][int(sys.argv[2])]["median"]*1000))' "$@"; }

fx="$work/fixture"
prepare "$fx"
cd "$fx"
"$bin" hook pre-commit || { echo "bench: the staged fixture does not pass the hook" >&2; exit 1; }
cp .ai/handoff/MANIFEST.json "$work/manifest.saved"
echo "edit" >> .ai/handoff/NEXT_ACTIONS.md

hyperfine -N --warmup 3 --runs "$runs" --export-json "$work/small.json" \
  --prepare "cp $work/manifest.saved $fx/.ai/handoff/MANIFEST.json" \
  "$bin manifest" \
  "$bin verify --level precommit" \
  "$bin hook pre-commit" \
  "$bin status" \
  "git diff --cached --name-only" >/dev/null
git checkout -q -- .ai/handoff/NEXT_ACTIONS.md 2>/dev/null || true
cp "$work/manifest.saved" .ai/handoff/MANIFEST.json

# Child processes: every execve after the binary's own, and every fork/clone that is not a
# thread (the linter builds its rule set on a second thread; threads are not processes).
children="n/a"
if command -v strace >/dev/null; then
  strace -f -qq -e trace=execve,fork,vfork,clone,clone3 -o "$work/trace" "$bin" hook pre-commit >/dev/null 2>&1 || true
  execs=$(grep -c 'execve(' "$work/trace" || true)
  forks=$(grep -E '(fork|vfork|clone|clone3)\(' "$work/trace" | grep -vc 'CLONE_THREAD' || true)
  children=$(( execs - 1 + forks ))
fi

{
  echo "| command (default fixture: 200-entry LOG, 11 files, 3 staged source files) | median ms |"
  echo "|---|---:|"
  echo "| \`git aahp manifest\` (one file changed) | $(median "$work/small.json" 0) |"
  echo "| \`git aahp verify --level precommit\` | $(median "$work/small.json" 1) |"
  echo "| \`git aahp hook pre-commit\` (verify + lint of the staged handoff) | $(median "$work/small.json" 2) |"
  echo "| \`git aahp status\` | $(median "$work/small.json" 3) |"
  echo "| \`git diff --cached --name-only\` (for scale) | $(median "$work/small.json" 4) |"
  echo "| child processes spawned by \`hook pre-commit\` | $children |"
} > "$out/results.md"

if [ "$big" = 1 ]; then
  bx="$work/big"
  prepare "$bx" --repo-files 100000
  cd "$bx"
  hyperfine -N --warmup 3 --runs "$runs" --export-json "$work/big.json" \
    "git diff --cached --name-only" \
    "$bin verify --level precommit" \
    "$bin hook pre-commit" >/dev/null
  g=$(median "$work/big.json" 0); v=$(median "$work/big.json" 1); h=$(median "$work/big.json" 2)
  ratio=$(python3 -c "print('%.2f' % ($h / $g))")
  {
    echo
    echo "| 100,000 indexed files, 3 staged | median ms |"
    echo "|---|---:|"
    echo "| \`git diff --cached --name-only\` | $g |"
    echo "| \`git aahp verify --level precommit\` | $v |"
    echo "| \`git aahp hook pre-commit\` | $h |"
    echo "| ratio hook / git diff --cached | $ratio |"
  } >> "$out/results.md"
fi
cat "$out/results.md"
