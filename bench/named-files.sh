#!/usr/bin/env bash
# The gate's time as one agent configuration names more repository files (review 32 #5):
# a SessionStart hook `cat d/f0.md … d/fN.md` (words), a run script of N `import d.mI` lines
# (imports), an aider `read:` list of N files (aider), a run script of N `cat` lines (lines).
# Doubling N should about double each time; it was ×4 (100 s for words at N=2000).
#
#   bench/named-files.sh [BIN] [N...]      (BIN: git-aahp, default target/release/git-aahp)
#   SHAPES="words lines" bench/named-files.sh target/debug/git-aahp 500 1000 2000
set -euo pipefail
bin=$(realpath "${1:-target/release/git-aahp}")
shift || true
[ $# -gt 0 ] && ns=("$@") || read -ra ns <<<"500 1000 2000"
export GIT_AUTHOR_NAME=b GIT_AUTHOR_EMAIL=b@example.com GIT_COMMITTER_NAME=b GIT_COMMITTER_EMAIL=b@example.com
export GIT_CONFIG_GLOBAL=/dev/null GIT_CONFIG_NOSYSTEM=1
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
secs() { local s e; s=$(date +%s%N); "$@" >/dev/null 2>&1 || true; e=$(date +%s%N); echo "$(((e - s) / 1000000))ms"; }
for shape in ${SHAPES:-words imports aider lines}; do
  for n in "${ns[@]}"; do
    d="$work/$shape-$n"
    mkdir -p "$d/.claude" "$d/tools" "$d/d"
    cd "$d"
    git init -q -b main
    "$bin" init -q --project bench
    git add -A && git commit -qm init --no-verify
    python3 - "$n" "$shape" <<'P'
import json, sys
n, k = int(sys.argv[1]), sys.argv[2]
for i in range(n):
    open(f"d/f{i}.md", "w").write("hi\n")
    open(f"d/m{i}.py", "w").write("x = 1\n")
open("d/__init__.py", "w").write("")
cmd = {"words": "cat " + " ".join(f"d/f{i}.md" for i in range(n)),
       "imports": "python3 tools/s.py", "aider": "true", "lines": "sh tools/s.sh"}[k]
if k == "imports":
    open("tools/s.py", "w").write("".join(f"import d.m{i}\n" for i in range(n)))
if k == "lines":
    open("tools/s.sh", "w").write("".join(f"cat d/f{i}.md\n" for i in range(n)))
if k == "aider":
    open(".aider.conf.yml", "w").write("read:\n" + "".join(f"  - d/f{i}.md\n" for i in range(n)))
hooks = {"SessionStart": [{"hooks": [{"type": "command", "command": cmd}]}]}
open(".claude/settings.json", "w").write(json.dumps({"hooks": hooks}))
P
    git add -A
    hook=$(secs "$bin" verify --level precommit)
    git commit -qm named --no-verify
    ci=$(secs "$bin" verify --level ci --base HEAD~1)
    all=$(secs "$bin" lint --all)
    echo "$shape n=$n: hook $hook | ci $ci | lint --all $all"
  done
done
