#!/usr/bin/env bash
# Benchmarks the commands a user feels and the goals of issue #14, on fixtures built by
# bench/make_fixture.py (the fixture the AAHP reference was measured on). Prints Markdown
# tables and writes them to bench/out/results.md. Not a test: timings never gate CI.
#
# Figures are ratios of medians measured in this one run (hyperfine), so they hold on a
# loaded machine better than absolute times; the archive-size ratios are also given as
# instruction counts (valgrind --tool=callgrind), which load does not move at all.
#
# usage: bench/run.sh [--quick]   (--quick: fewer runs, no 100,000-file repository, no
#                                  19,990-entry archive, no callgrind)
# env:   AAHP_BENCH_ONLY=archive   only the archive-size series (and its callgrind and peak
#                                  memory rows), e.g. to compare two builds;
#        AAHP_BENCH_BIN=PATH       measure this git-aahp binary instead of building one.
# needs: cargo, git, python3, hyperfine; optional: valgrind, /usr/bin/time, strace, and
#        the reference CLI `aahp` on PATH for the side-by-side table.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(dirname "$here")
fixture_py=${AAHP_FIXTURE:-$here/make_fixture.py}
runs=20
full=1
[ "${1:-}" = "--quick" ] && { runs=8; full=0; }

command -v hyperfine >/dev/null || { echo "bench: hyperfine is missing (apt-get install hyperfine)" >&2; exit 2; }

only=${AAHP_BENCH_ONLY:-}
if [ -n "${AAHP_BENCH_BIN:-}" ]; then
  # Its directory goes first on PATH and git runs `git aahp` as `git-aahp`.
  [ "$(basename "$AAHP_BENCH_BIN")" = git-aahp ] || {
    echo "bench: AAHP_BENCH_BIN must name a file called git-aahp (git runs \`git aahp\` by that name)" >&2; exit 2; }
  bin=$(cd "$(dirname "$AAHP_BENCH_BIN")" && pwd)/$(basename "$AAHP_BENCH_BIN")
  bindir=$(dirname "$bin")
else
  cargo build --release --locked --quiet --manifest-path "$root/Cargo.toml"
  bindir="$root/target/release"
  bin="$bindir/git-aahp"
fi
export PATH="$bindir:$PATH"
out="$root/bench/out"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$out"
results="$out/results.md"
: > "$results"

export GIT_CONFIG_GLOBAL=/dev/null GIT_CONFIG_NOSYSTEM=1 GIT_AUTHOR_NAME=bench GIT_AUTHOR_EMAIL=bench@example.com \
  GIT_COMMITTER_NAME=bench GIT_COMMITTER_EMAIL=bench@example.com NO_COLOR=1
unset GIT_DIR GIT_INDEX_FILE GIT_WORK_TREE AAHP_SKIP_VERIFY
# No background `git gc --auto` / maintenance: it would compete with the timings and race the
# clean-up of the work directory.
export GIT_CONFIG_COUNT=2 GIT_CONFIG_KEY_0=gc.auto GIT_CONFIG_VALUE_0=0 \
  GIT_CONFIG_KEY_1=maintenance.auto GIT_CONFIG_VALUE_1=false

say() { echo "$@" | tee -a "$results"; }

# A fixture with a manifest committed, then a realistic commit staged: 3 source files plus
# the handoff update that goes with them (STATUS.md edited, manifest regenerated). With
# ROTATE=1, LOG.md is first rotated to its newest 10 entries and the archive committed: the
# steady state of a long-lived project.
prepare() { # DIR EXTRA-ARGS...
  local dir=$1; shift
  python3 "$fixture_py" "$dir" --staged-code 3 "$@" >/dev/null
  git -C "$dir" stash -q
  if [ "${ROTATE:-0}" = 1 ]; then (cd "$dir" && "$bin" -q archive); fi
  (cd "$dir" && "$bin" -q manifest)
  git -C "$dir" add -A
  # The rotated archive is committed through the pre-commit gate, as in a repository set up
  # with `git aahp hooks install` (or by `git aahp commit`): the gate records its state.
  if [ "${ROTATE:-0}" = 1 ]; then (cd "$dir" && "$bin" hook pre-commit >/dev/null); fi
  git -C "$dir" commit -q -m "handoff manifest"
  git -C "$dir" stash pop -q
  printf '\nSession note: three modules bumped.\n' >> "$dir/.ai/handoff/STATUS.md"
  (cd "$dir" && "$bin" -q manifest --agent bench)
  git -C "$dir" add -A
  (cd "$dir" && "$bin" hook pre-commit) || { echo "bench: the staged fixture $dir does not pass the hook" >&2; exit 1; }
}

# hyperfine, one JSON per call; `med FILE I` is command I's median in ms. With -N no shell
# runs the commands, the preparation commands included: those are wrapped in `sh -c`.
hf() { # JSON ARGS...
  local json=$1; shift
  hyperfine -N --warmup 3 --runs "$runs" --export-json "$json" "$@" >/dev/null
}
med() { python3 -c 'import json,sys; print("%.2f" % (json.load(open(sys.argv[1]))["results"][int(sys.argv[2])]["median"]*1000))' "$@"; }
ratio() { python3 -c 'import sys; print("%.2f" % (float(sys.argv[1]) / float(sys.argv[2])))' "$@"; }
verdict() { python3 -c 'import sys; print("met" if float(sys.argv[1]) <= float(sys.argv[2]) else "**unmet**")' "$@"; }
peak() { /usr/bin/time -f %M "$@" 2>&1 >/dev/null | tail -1 | awk '{printf "%.1f", $1/1024}'; }
instr() { # DIR ARGS... -> instructions of `git-aahp ARGS` run in DIR
  local dir=$1; shift
  (cd "$dir" && valgrind --tool=callgrind --callgrind-out-file=/dev/null "$bin" "$@" 2>&1 >/dev/null) \
    | sed -n 's/.*Collected : \([0-9]*\).*/\1/p'
}

# --- the default fixture -------------------------------------------------------------------
if [ "$only" != archive ]; then
fx="$work/fixture"
prepare "$fx"
cp -a "$fx" "$work/fixture.saved"
reset_fx="sh -c 'rm -rf $fx && cp -a $work/fixture.saved $fx'"
edit_fx="sh -c 'rm -rf $fx && cp -a $work/fixture.saved $fx && echo edit >> $fx/.ai/handoff/NEXT_ACTIONS.md'"

hf "$work/default.json" \
  -p true -p true -p true -p true -p true -p "$edit_fx" -p "$reset_fx" \
  "git -C $fx aahp --version" \
  "git -C $fx diff --cached --name-only" \
  "git -C $fx aahp hook pre-commit" \
  "git -C $fx aahp context" \
  "git -C $fx aahp status" \
  "git -C $fx aahp manifest" \
  "git -C $fx aahp commit -m bench --log 'Bench session.' --session-id bench --no-tag"
v=$(med "$work/default.json" 0); g=$(med "$work/default.json" 1); h=$(med "$work/default.json" 2)
c=$(med "$work/default.json" 3); s=$(med "$work/default.json" 4); m=$(med "$work/default.json" 5)
k=$(med "$work/default.json" 6)

# The same commit with LOG.md already rotated (the default fixture's commit also archives
# 190 of its 200 entries).
rx="$work/rotated"
ROTATE=1 prepare "$rx"
cp -a "$rx" "$work/rotated.saved"
hf "$work/commit.json" -p "sh -c 'rm -rf $rx && cp -a $work/rotated.saved $rx'" \
  "git -C $rx aahp commit -m bench --log 'Bench session.' --session-id bench --no-tag"
kr=$(med "$work/commit.json" 0)

children="n/a"
if command -v strace >/dev/null; then
  (cd "$fx" && strace -f -qq -e trace=execve,fork,vfork,clone,clone3 -o "$work/trace" "$bin" hook pre-commit >/dev/null 2>&1) || true
  execs=$(grep -c 'execve(' "$work/trace" || true)
  forks=$(grep -E '(fork|vfork|clone|clone3)\(' "$work/trace" | grep -vc 'CLONE_THREAD' || true)
  children=$(( execs - 1 + forks ))
fi

say "### Default fixture (200-entry LOG.md, 11 handoff files, 3 staged source files), $runs runs"
say
say "| command | median ms | ratio | goal |"
say "|---|---:|---:|---|"
say "| \`git aahp --version\` (process floor through git) | $v | 1.00 | |"
say "| \`git diff --cached --name-only\` | $g | | |"
say "| \`git aahp hook pre-commit\` | $h | $(ratio "$h" "$v")× --version | ≤ 2×: $(verdict "$(ratio "$h" "$v")" 2) |"
say "| \`git aahp manifest\` (NEXT_ACTIONS.md edited) | $m | $(ratio "$m" "$g")× git diff | ≤ 10×: $(verdict "$(ratio "$m" "$g")" 10) |"
say "| \`git aahp context\` | $c | $(ratio "$c" "$g")× git diff | ≤ 10×: $(verdict "$(ratio "$c" "$g")" 10) |"
say "| \`git aahp commit\` (rotates 190 LOG.md entries) | $k | $(ratio "$k" "$g")× git diff | ≤ 10×: $(verdict "$(ratio "$k" "$g")" 10) |"
say "| \`git aahp commit\` (LOG.md already rotated) | $kr | $(ratio "$kr" "$g")× git diff | ≤ 10×: $(verdict "$(ratio "$kr" "$g")" 10) |"
say "| \`git aahp status\` | $s | $(ratio "$s" "$g")× git diff | |"
say "| processes spawned by \`git-aahp hook pre-commit\` | $children | | 0 |"
say
fi

# --- archive size: LOG.md rotated to 10 entries, 190 / 1,990 / 19,990 archived -------------
sizes="190 1990"
[ "$full" = 1 ] && sizes="190 1990 19990"
hook_cmds=(); arch_cmds=(); arch_prep=(); cold_prep=(); commit_cmds=()
for n in $sizes; do
  d="$work/arch$n"
  ROTATE=1 prepare "$d" --log-entries $((n + 10))
  hook_cmds+=("git -C $d aahp hook pre-commit")
  # One more entry, dated after the others: `archive` moves exactly one to the archive.
  a="$work/arch$n-one"
  cp -a "$d" "$a"
  git -C "$a" stash -q
  python3 - "$a/.ai/handoff/LOG.md" <<'PY'
import sys
p = sys.argv[1]
t = open(p, encoding="utf-8").read()
cut = t.index("## [")
entry = ("## [2099-01-01] bench-agent-0: Session new\n\n**Agent:** bench-agent-0\n\n"
         "### What was done\n\n- one more entry\n\n---\n\n")
open(p, "w", encoding="utf-8").write(t[:cut] + entry + t[cut:])
PY
  cp -a "$a" "$a.saved"
  arch_cmds+=("git -C $a aahp archive")
  # The session's end that moves the same entry: `commit` rotates it, then judges what it
  # stages (the archive's new end included) as the pre-commit gate does.
  commit_cmds+=("git -C $a aahp commit -m bench --log 'Bench session.' --session-id bench --no-tag")
  # The copy's index is refreshed as \`git status\` would: a real repository's index holds
  # the files' current stat data, so \`archive\` can tell the archive equals HEAD's without
  # hashing it (the copy gets new inode and ctime numbers). Then \`sync\`: a real archive was
  # written sessions ago and is clean on disk, while a fresh copy is megabytes of dirty
  # pages that the run's fsync of the appended archive would write out, timing the copy.
  arch_prep+=(-p "sh -c 'rm -rf $a && cp -a $a.saved $a && (git -C $a update-index -q --refresh || true) && sync'")
  # The same without the pass state cache (deleted): the archive's blob was committed past
  # the gate, so its committed bytes are read once more.
  cold_prep+=(-p "sh -c 'rm -rf $a && cp -a $a.saved $a && rm -f $a/.git/aahp/pass-states && (git -C $a update-index -q --refresh || true) && sync'")
done
hf "$work/arch_hook.json" "git -C $work/arch190 diff --cached --name-only" "${hook_cmds[@]}"
hf "$work/arch_one.json" "${arch_prep[@]}" "${arch_cmds[@]}"
hf "$work/arch_cold.json" "${cold_prep[@]}" "${arch_cmds[@]}"
hf "$work/arch_commit.json" "${arch_prep[@]}" "${commit_cmds[@]}"

say "### Archive size: LOG.md at 10 entries, the rest archived and committed; 3 source files + STATUS.md + manifest staged, $runs runs"
say
say "| archived entries | hook ms | hook / hook at 190 | archive 1 entry ms | archive / archive at 190 | archive, no cached state, ms | ratio | commit moving 1 entry ms | ratio |"
say "|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
i=0; h190=""; a190=""; c190=""; k190=""
for n in $sizes; do
  hn=$(med "$work/arch_hook.json" $((i + 1))); an=$(med "$work/arch_one.json" "$i")
  cn=$(med "$work/arch_cold.json" "$i"); kn=$(med "$work/arch_commit.json" "$i")
  [ -z "$h190" ] && { h190=$hn; a190=$an; c190=$cn; k190=$kn; }
  say "| $n | $hn | $(ratio "$hn" "$h190") | $an | $(ratio "$an" "$a190") | $cn | $(ratio "$cn" "$c190") | $kn | $(ratio "$kn" "$k190") |"
  i=$((i + 1))
done
say "| \`git diff --cached --name-only\` | $(med "$work/arch_hook.json" 0) | | | | | | | |"
last=${sizes##* }
say
say "Goals: hook at $last ≤ 1.2× hook at 190: $(verdict "$(ratio "$(med "$work/arch_hook.json" "$i")" "$h190")" 1.2); archive at $last ≤ 1.5× archive at 190: $(verdict "$(ratio "$(med "$work/arch_one.json" $((i - 1)))" "$a190")" 1.5); commit moving one entry at $last ≤ 1.5× at 190 (the same goal for the rotation a session's end does): $(verdict "$(ratio "$(med "$work/arch_commit.json" $((i - 1)))" "$k190")" 1.5)."
say

if [ "$full" = 1 ] && command -v valgrind >/dev/null; then
  say "Instructions (callgrind, \`git-aahp\` run directly; load does not move these):"
  say
  say "| archived entries | hook instructions | ratio | archive 1 entry instructions | ratio |"
  say "|---:|---:|---:|---:|---:|"
  hi0=""; ai0=""
  for n in $sizes; do
    hi=$(instr "$work/arch$n" hook pre-commit)
    rm -rf "$work/arch$n-one" && cp -a "$work/arch$n-one.saved" "$work/arch$n-one"
    git -C "$work/arch$n-one" update-index -q --refresh || true
    ai=$(instr "$work/arch$n-one" archive)
    [ -z "$hi0" ] && { hi0=$hi; ai0=$ai; }
    say "| $n | $hi | $(ratio "$hi" "$hi0") | $ai | $(ratio "$ai" "$ai0") |"
  done
  say
fi

if [ -x /usr/bin/time ]; then
  big_arch="$work/arch$last"
  rm -rf "$big_arch-one" && cp -a "$big_arch-one.saved" "$big_arch-one"
  git -C "$big_arch-one" update-index -q --refresh || true
  ph=$(cd "$big_arch" && peak "$bin" hook pre-commit)
  pa=$(cd "$big_arch-one" && peak "$bin" archive)
  pv=$(cd "$big_arch" && peak "$bin" verify)
  # A session whose commit moves the one new entry into the archive (issue #12 item 2).
  rm -rf "$big_arch-one" && cp -a "$big_arch-one.saved" "$big_arch-one"
  git -C "$big_arch-one" update-index -q --refresh || true
  (cd "$big_arch-one" && "$bin" -q begin --agent bench >/dev/null)
  pc=$(cd "$big_arch-one" && peak "$bin" commit -m "bench session")
  say "Peak RSS at $last archived entries (GNU time, largest process): hook $ph MiB, archive $pa MiB (goal ≤ 30 MiB each); verify $pv MiB, commit moving one entry $pc MiB."
  say
fi

# --- repository size -------------------------------------------------------------------------
if [ "$only" = archive ]; then
  echo "bench: results in $results" >&2
  exit 0
fi
if [ "$full" = 1 ]; then
  bx="$work/big"
  prepare "$bx" --repo-files 100000
  hf "$work/big.json" \
    "git -C $bx diff --cached --name-only" \
    "git -C $bx diff --cached" \
    "git -C $bx aahp hook pre-commit"
  g1=$(med "$work/big.json" 0); g2=$(med "$work/big.json" 1); hb=$(med "$work/big.json" 2)
  say "### 100,000 indexed files, 3 staged, $runs runs"
  say
  say "| command | median ms |"
  say "|---|---:|"
  say "| \`git diff --cached --name-only\` | $g1 |"
  say "| \`git diff --cached\` | $g2 |"
  say "| \`git aahp hook pre-commit\` | $hb |"
  say "| ratio hook / \`git diff --cached\` (goal ≤ 1.0) | $(ratio "$hb" "$g2"): $(verdict "$(ratio "$hb" "$g2")" 1.0) |"
  say "| ratio hook / \`git diff --cached --name-only\` | $(ratio "$hb" "$g1") |"
  say
fi

# --- the token counter -----------------------------------------------------------------------
say "### Token counter (o200k_base table built at compile time)"
say
say "| measure | figure |"
say "|---|---:|"
cargo bench --locked --quiet --manifest-path "$root/Cargo.toml" --bench tokens 2>/dev/null | grep '^|' | tee -a "$results"
say

# --- the reference, side by side ---------------------------------------------------------------
if command -v aahp >/dev/null; then
  ref="$work/reference"
  python3 "$fixture_py" "$ref" --staged-code 3 >/dev/null
  git -C "$ref" stash -q
  aahp manifest "$ref" --quiet >/dev/null
  git -C "$ref" add -A && git -C "$ref" commit -q -m "handoff manifest"
  git -C "$ref" stash pop -q
  printf '\nSession note: three modules bumped.\n' >> "$ref/.ai/handoff/STATUS.md"
  aahp manifest "$ref" --quiet >/dev/null
  git -C "$ref" add -A
  hf "$work/ref.json" -i \
    "git -C $fx aahp hook pre-commit" "aahp verify $ref --level precommit" \
    "git -C $fx aahp lint" "aahp lint $ref" \
    "git -C $fx aahp status" "aahp status $ref"
  say "### Against the reference CLI (\`aahp\`, same fixture, $runs runs)"
  say
  say "| operation | git-aahp ms | reference ms | reference / git-aahp |"
  say "|---|---:|---:|---:|"
  for pair in "pre-commit check:0:1" "lint:2:3" "status:4:5"; do
    IFS=: read -r name a b <<<"$pair"
    ma=$(med "$work/ref.json" "$a"); mb=$(med "$work/ref.json" "$b")
    say "| $name | $ma | $mb | $(ratio "$mb" "$ma")× |"
  done
  say
else
  say "The reference CLI (\`aahp\`, npm \`@elvatis_com/aahp\`) is not installed: no side-by-side table."
  say
fi
echo "bench: results in $results" >&2
