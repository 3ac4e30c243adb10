#!/usr/bin/env bash
# Adversarial inputs for the linter (issue #13 item 4): each shape of bench/adversarial.py
# (about 1 MB), staged as a handoff file in a fresh repository and judged the way a user
# meets it: `git-aahp hook pre-commit` (the staged file, the repository's .aiignore) and
# `git-aahp lint FILE`. Prints a Markdown table (and writes bench/out/lint-adversarial.md):
# wall time (hyperfine medians, few runs), instructions of the hook (callgrind: the machine
# is shared, and load moves wall time but not instruction counts), and the verdict against
# the goal of 100 ms. Then a size series (256 KiB / 1 MiB / 4 MiB) of the slowest shapes, to
# show that the cost grows linearly. Not a test: nothing here gates CI.
#
# usage: bench/lint-adversarial.sh [--only SHAPE[,SHAPE...]] [--no-callgrind] [--no-series]
#                                  [--runs N]
# needs: cargo, git, python3, hyperfine; valgrind for the instruction counts.
# env:   AAHP_BENCH_BIN=PATH  time this binary instead of building the release one.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(dirname "$here")
only="" callgrind=1 series=1 runs=3
while [ $# -gt 0 ]; do
  case $1 in
    --only) only=$2; shift ;;
    --no-callgrind) callgrind=0 ;;
    --no-series) series=0 ;;
    --runs) runs=$2; shift ;;
    *) echo "usage: $0 [--only SHAPE,...] [--no-callgrind] [--no-series] [--runs N]" >&2; exit 2 ;;
  esac
  shift
done
command -v hyperfine >/dev/null || { echo "bench: hyperfine is missing (apt-get install hyperfine)" >&2; exit 2; }
command -v valgrind >/dev/null || callgrind=0

# AAHP_BENCH_BIN: a binary already built (e.g. target/profiling/git-aahp, the release build
# with line tables, to annotate the callgrind runs); else the release build is made.
if [ -n "${AAHP_BENCH_BIN:-}" ]; then
  bin=$(realpath "$AAHP_BENCH_BIN")
else
  cargo build --release --locked --quiet --manifest-path "$root/Cargo.toml"
  bin="$root/target/release/git-aahp"
fi
out="$root/bench/out"
mkdir -p "$out"
results="$out/lint-adversarial.md"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

export GIT_CONFIG_GLOBAL=/dev/null GIT_CONFIG_NOSYSTEM=1 GIT_AUTHOR_NAME=bench GIT_AUTHOR_EMAIL=bench@example.com \
  GIT_COMMITTER_NAME=bench GIT_COMMITTER_EMAIL=bench@example.com NO_COLOR=1 \
  GIT_CONFIG_COUNT=2 GIT_CONFIG_KEY_0=gc.auto GIT_CONFIG_VALUE_0=0 \
  GIT_CONFIG_KEY_1=maintenance.auto GIT_CONFIG_VALUE_1=false
unset GIT_DIR GIT_INDEX_FILE GIT_WORK_TREE AAHP_SKIP_VERIFY

# A repository made by `git-aahp init`, committed; then the shape's STATUS.md (and .aiignore)
# written over the template's, the manifest regenerated and everything staged.
template="$work/template"
mkdir -p "$template" && git -C "$template" init -q -b main
(cd "$template" && "$bin" -q init >/dev/null && git add -A && git commit -q -m init)
prepare() { # SHAPE-DIR REPO
  local src=$1 repo=$2
  rm -rf "$repo" && cp -a "$template" "$repo"
  cp "$src/STATUS.md" "$repo/.ai/handoff/STATUS.md"
  [ -f "$src/.aiignore" ] && cp "$src/.aiignore" "$repo/.ai/handoff/.aiignore"
  # A refused .aiignore makes the manifest refuse too: the staged manifest is then stale,
  # which the hook reports besides the refusal.
  (cd "$repo" && "$bin" -q manifest >/dev/null 2>&1) || true
  git -C "$repo" add -A
}

# hyperfine -N, medians in ms (exit codes ignored: most shapes are meant to fail the hook).
# A first timed run decides: past 5 s the shape gets that one run, not hyperfine.
wall() { # REPO ARGS... -> median ms
  local repo=$1; shift
  local t0 t1
  t0=$(date +%s%N)
  (cd "$repo" && timeout 300 "$bin" "$@" >/dev/null 2>&1) || true
  t1=$(date +%s%N)
  local once=$(( (t1 - t0) / 1000000 ))
  if [ "$once" -gt 5000 ]; then echo "$once (1 run)"; return; fi
  (cd "$repo" && hyperfine -N -i --warmup 1 --runs "$runs" --export-json "$work/hf.json" "$bin $*" >/dev/null 2>&1)
  python3 -c 'import json,sys; print("%.1f" % (json.load(open(sys.argv[1]))["results"][0]["median"]*1000))' "$work/hf.json"
}
instr() { # REPO ARGS... -> instructions
  local repo=$1; shift
  # The hook's exit code is not valgrind's failure: most shapes are meant to fail the hook.
  { (cd "$repo" && timeout 1800 valgrind --tool=callgrind --callgrind-out-file=/dev/null "$bin" "$@" 2>&1 >/dev/null) || true; } \
    | sed -n 's/.*Collected : \([0-9]*\).*/\1/p' | python3 -c 'import sys; v=sys.stdin.read().strip(); print(f"{int(v):,}" if v else "timeout")'
}
verdict() { python3 -c 'import sys; v=float(sys.argv[1].split()[0]); print("pass" if v <= 100 else "**fail**")' "$1"; }
outcome() { # REPO -> exit code of the hook
  (cd "$1" && "$bin" hook pre-commit >/dev/null 2>&1); echo $?
}

say() { echo "$@" | tee -a "$results"; }
: > "$results"
say "#### Adversarial inputs, 1 MiB each (\`bench/lint-adversarial.sh\`, $(date -u +%Y-%m-%d), $(git -C "$root" rev-parse --short HEAD), load $(cut -d' ' -f1 /proc/loadavg))"
say ""
say "| shape | hook exit | hook ms | \`lint FILE\` ms | hook instructions | ≤ 100 ms |"
say "|---|---:|---:|---:|---:|---|"
shapes="$work/shapes"
python3 "$here/adversarial.py" "$shapes" --only "$only" >/dev/null
slow=()
for d in "$shapes"/*/; do
  name=$(basename "$d")
  repo="$work/repo-$name"
  prepare "$d" "$repo"
  code=$(outcome "$repo")
  hook=$(wall "$repo" hook pre-commit)
  lint=$(wall "$repo" lint .ai/handoff/STATUS.md)
  ins="—"
  [ "$callgrind" = 1 ] && ins=$(instr "$repo" hook pre-commit)
  v=$(verdict "$hook")
  [ "$v" = pass ] || slow+=("$name")
  say "| $name | $code | $hook | $lint | $ins | $v |"
  rm -rf "$repo"
done

if [ "$series" = 1 ]; then
  # The size series: the shapes over the goal, or the field notes' four when all pass.
  [ ${#slow[@]} -gt 0 ] || slow=(aws-key-ids-one-line emails-one-line open-brackets section-markers)
  say ""
  say "#### Size series (hook; instructions when callgrind ran, else ms)"
  say ""
  say "| shape | 256 KiB | 1 MiB | 4 MiB | 4 MiB / 1 MiB |"
  say "|---|---:|---:|---:|---:|"
  for name in "${slow[@]}"; do
    case $name in aiignore-*) continue ;; esac
    row=()
    for size in 262144 1048576 4194304; do
      rm -rf "$work/s" && python3 "$here/adversarial.py" "$work/s" --size "$size" --only "$name" >/dev/null
      repo="$work/repo-series"
      prepare "$work/s/$name" "$repo"
      if [ "$callgrind" = 1 ]; then row+=("$(instr "$repo" hook pre-commit)"); else row+=("$(wall "$repo" hook pre-commit)"); fi
    done
    ratio=$(python3 -c 'import sys; a,b=(float(x.split()[0].replace(",","")) if x[0].isdigit() else 0 for x in sys.argv[1:]); print("%.2f" % (b/a) if a else "—")' "${row[1]}" "${row[2]}")
    say "| $name | ${row[0]} | ${row[1]} | ${row[2]} | $ratio |"
  done
fi
echo "written to $results" >&2
