#!/usr/bin/env bash
# The pre-commit framework against git-aahp, with the real tool: run by .ci/run after
# `cargo test` for each pre-commit version it installed (2.x and 4.x).
#
#   tests/pre-commit.sh BIN_DIR PRE_COMMIT...
#
# BIN_DIR holds the git-aahp binary under test; each PRE_COMMIT is a pre-commit executable.
# For each, it checks that:
#   1. it accepts .pre-commit-hooks.yaml (all four ids, stage names included);
#   2. the hooks, installed by `pre-commit install` from a repository holding that file,
#      block a commit of code without a handoff update and pass one with it;
#   3. the .pre-commit-config.yaml lines `git aahp hooks install` prints when pre-commit
#      manages the hooks are valid configuration that blocks the same commit;
#   4. after pre-commit moved git-aahp's shim to pre-commit.legacy, `hooks status` says so
#      and `hooks uninstall` removes it, so commits are no longer blocked.
# Prints one line per check and a closing count; exits 1 when any check failed.
set -uo pipefail

here=$(cd "$(dirname "$0")/.." && pwd)
bin_dir=$(cd "$1" && pwd)
shift
[ -x "$bin_dir/git-aahp" ] || {
    echo "tests/pre-commit.sh: no git-aahp in $bin_dir" >&2
    exit 2
}

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export PATH="$bin_dir:$PATH"
export HOME="$work/home" PRE_COMMIT_HOME="$work/cache"
export GIT_CONFIG_GLOBAL=/dev/null GIT_CONFIG_NOSYSTEM=1
export GIT_AUTHOR_NAME=t GIT_AUTHOR_EMAIL=t@example.com GIT_COMMITTER_NAME=t GIT_COMMITTER_EMAIL=t@example.com
unset AAHP_SKIP_VERIFY GIT_DIR GIT_INDEX_FILE GIT_WORK_TREE
mkdir -p "$HOME"

passed=0
failed=0
ok() {
    echo "ok     $1"
    passed=$((passed + 1))
}
bad() {
    echo "FAILED $1"
    [ -n "${2:-}" ] && sed 's/^/       | /' "$2"
    failed=$((failed + 1))
}

# A repository holding only the hooks file under test, committed (pre-commit clones a rev).
hooks_repo="$work/hooks-repo"
git init -q "$hooks_repo"
cp "$here/.pre-commit-hooks.yaml" "$hooks_repo/"
git -C "$hooks_repo" add .pre-commit-hooks.yaml
git -C "$hooks_repo" commit -qm hooks
hooks_rev=$(git -C "$hooks_repo" rev-parse HEAD)

# A consumer repository with an initialised, committed handoff.
new_consumer() {
    local d=$1
    git init -q "$d"
    echo 'fn main() {}' >"$d/main.rs"
    (cd "$d" && git aahp init -q --project demo && git add -A && git commit -qm init --no-verify)
}

# Commits a code-only change; echoes nothing, returns git's status. Output in $d.out.
commit_code_only() {
    local d=$1
    echo "// $RANDOM" >>"$d/main.rs"
    (cd "$d" && git add main.rs && git commit -qm code) >"$d.out" 2>&1
}

# Commits code with a STATUS.md update and a regenerated manifest.
commit_with_handoff() {
    local d=$1
    echo "// $RANDOM" >>"$d/main.rs"
    echo "- changed main.rs" >>"$d/.ai/handoff/STATUS.md"
    (cd "$d" && git aahp manifest -q && git add -A && git commit -qm "code and handoff") >"$d.out" 2>&1
}

for pc in "$@"; do
    v=$("$pc" --version 2>&1) || {
        bad "$pc --version" /dev/null
        continue
    }
    tag="[$v]"
    n=$((passed + failed))

    # 1. The hooks file.
    if "$pc" validate-manifest "$here/.pre-commit-hooks.yaml" >"$work/out" 2>&1; then
        ok "$tag validate-manifest .pre-commit-hooks.yaml"
    else
        bad "$tag validate-manifest .pre-commit-hooks.yaml" "$work/out"
    fi

    # 2. The hooks from the file, installed by pre-commit.
    c="$work/c2-$n"
    new_consumer "$c"
    cat >"$c/.pre-commit-config.yaml" <<EOF
repos:
  - repo: $hooks_repo
    rev: $hooks_rev
    hooks:
      - id: aahp-verify
      - id: aahp-verify-push
EOF
    git -C "$c" add .pre-commit-config.yaml
    git -C "$c" commit -qm config --no-verify
    if (cd "$c" && "$pc" install --hook-type pre-commit --hook-type pre-push) >"$work/out" 2>&1; then
        if commit_code_only "$c"; then
            bad "$tag aahp-verify blocks code without a handoff update" "$c.out"
        elif grep -q 'STATUS.md' "$c.out"; then
            ok "$tag aahp-verify blocks code without a handoff update"
        else
            bad "$tag aahp-verify blocks code without a handoff update (no drift message)" "$c.out"
        fi
        git -C "$c" reset -q --hard
        if commit_with_handoff "$c"; then
            ok "$tag aahp-verify passes code with a handoff update"
        else
            bad "$tag aahp-verify passes code with a handoff update" "$c.out"
        fi
    else
        bad "$tag pre-commit install" "$work/out"
    fi

    # 3. The advice `git aahp hooks install` prints when pre-commit is set up.
    c="$work/c3-$n"
    new_consumer "$c"
    echo 'repos: []' >"$c/.pre-commit-config.yaml"
    (cd "$c" && git aahp hooks install) >"$work/advice" 2>&1
    # The YAML block: from `repos:` through the indented lines under it.
    awk '/^repos:$/ {on=1; print; next} on && /^  / {print; next} on {exit}' "$work/advice" >"$c/.pre-commit-config.yaml"
    if [ ! -s "$c/.pre-commit-config.yaml" ]; then
        bad "$tag hooks install prints a .pre-commit-config.yaml block" "$work/advice"
    elif ! "$pc" validate-config "$c/.pre-commit-config.yaml" >"$work/out" 2>&1; then
        cat "$c/.pre-commit-config.yaml" >>"$work/out"
        bad "$tag the advice is valid pre-commit configuration" "$work/out"
    else
        ok "$tag the advice is valid pre-commit configuration"
        git -C "$c" add .pre-commit-config.yaml
        git -C "$c" commit -qm config --no-verify
        (cd "$c" && "$pc" install --hook-type pre-commit --hook-type pre-push) >"$work/out" 2>&1
        if commit_code_only "$c"; then
            bad "$tag the advice's hook blocks code without a handoff update" "$c.out"
        else
            ok "$tag the advice's hook blocks code without a handoff update"
        fi
    fi

    # 4. Our shim, moved to pre-commit.legacy by `pre-commit install`.
    c="$work/c4-$n"
    new_consumer "$c"
    (cd "$c" && git aahp hooks install -q) >"$work/out" 2>&1
    echo 'repos: []' >"$c/.pre-commit-config.yaml"
    git -C "$c" add .pre-commit-config.yaml
    git -C "$c" commit -qm config --no-verify
    (cd "$c" && "$pc" install) >"$work/out" 2>&1
    if [ ! -f "$c/.git/hooks/pre-commit.legacy" ]; then
        bad "$tag pre-commit keeps the shim as pre-commit.legacy" "$work/out"
    else
        (cd "$c" && git aahp hooks status) >"$work/out" 2>&1
        if grep -q 'pre-commit.legacy' "$work/out" && ! grep -q 'chains it' "$work/out"; then
            ok "$tag hooks status names the shim pre-commit runs from pre-commit.legacy"
        else
            bad "$tag hooks status names the shim pre-commit runs from pre-commit.legacy" "$work/out"
        fi
        if commit_code_only "$c"; then
            bad "$tag the legacy shim still blocks before uninstall" "$c.out"
        else
            ok "$tag the legacy shim still blocks before uninstall"
        fi
        git -C "$c" reset -q --hard
        (cd "$c" && git aahp hooks uninstall) >"$work/out" 2>&1
        if [ -e "$c/.git/hooks/pre-commit.legacy" ]; then
            bad "$tag hooks uninstall removes pre-commit.legacy" "$work/out"
        elif commit_code_only "$c"; then
            ok "$tag hooks uninstall removes pre-commit.legacy; commits pass again"
        else
            bad "$tag hooks uninstall removes pre-commit.legacy; commits pass again" "$c.out"
        fi
    fi
done

echo "pre-commit: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
