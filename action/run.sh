#!/usr/bin/env bash
# The composite action's checks (action.yml), one per step:
#
#   run.sh verify   the gate: `git aahp verify --level LEVEL` over the range from the base;
#                   its exit code is the step's, so the job fails closed
#   run.sh sarif    `git aahp lint --all --format sarif` into $SARIF_FILE (findings are the
#                   gate's business, so exit 1 passes here; exit 2, could not run, fails)
#   run.sh summary  `git aahp review` for the range, appended to $GITHUB_STEP_SUMMARY
#
# Inputs (environment): AAHP_LEVEL (default ci), AAHP_BASE (default: from the event),
# EVENT_BEFORE (github.event.before), MERGE_GROUP_BASE (github.event.merge_group.base_sha),
# DEFAULT_BRANCH (github.event.repository.default_branch), and GitHub's own GITHUB_*.
set -euo pipefail

zeros=0000000000000000000000000000000000000000

# The base the gate and the review judge from. Empty means: let `git aahp` find it
# (pull request base, merge queue base, push `before`) or fail closed saying why.
base_for_event() {
    if [ -n "${AAHP_BASE:-}" ]; then
        printf '%s\n' "$AAHP_BASE"
        return
    fi
    case "${GITHUB_EVENT_NAME:-}" in
    push)
        # Judged from the default branch instead of the push's `before`: a tag (what it
        # points at is judged as a branch would be), a push that creates a branch (no
        # `before`), and a force-push (its `before`, the old tip, is in no ref any more).
        # On the default branch itself there is nothing to judge from, and `git aahp`
        # fails closed.
        [ -n "${DEFAULT_BRANCH:-}" ] || return 0
        local ref=${GITHUB_REF:-refs/heads/${GITHUB_REF_NAME:-}}
        local before=${EVENT_BEFORE:-$zeros}
        if [[ $ref == refs/tags/* ]]; then
            printf 'origin/%s\n' "$DEFAULT_BRANCH"
        elif [ "$ref" != "refs/heads/$DEFAULT_BRANCH" ] &&
            { [ "$before" = "$zeros" ] || ! git cat-file -e "$before^{commit}" 2>/dev/null; }; then
            printf 'origin/%s\n' "$DEFAULT_BRANCH"
        fi
        ;;
    esac
}

# True when the base is the default branch and HEAD is a commit it already holds: the push
# (a tag, or a branch made where the default branch is) adds nothing to a range.
adds_nothing_to() {
    [ -n "${DEFAULT_BRANCH:-}" ] && [ "$1" = "origin/$DEFAULT_BRANCH" ] &&
        git merge-base --is-ancestor HEAD "$1" 2>/dev/null
}

# A shallow clone hides the base and the merge base: fetch the history once.
unshallow() {
    if [ "$(git rev-parse --is-shallow-repository 2>/dev/null)" = true ]; then
        echo "git-aahp: the checkout is shallow; fetching the full history (set fetch-depth: 0 to skip this)"
        git fetch --quiet --no-tags --unshallow origin || true
    fi
    if [ -n "${GITHUB_BASE_REF:-}" ]; then
        git fetch --quiet --no-tags origin "+refs/heads/$GITHUB_BASE_REF:refs/remotes/origin/$GITHUB_BASE_REF" || true
    fi
    if [ -n "${DEFAULT_BRANCH:-}" ] && [ "${GITHUB_EVENT_NAME:-}" = push ]; then
        git fetch --quiet --no-tags origin "+refs/heads/$DEFAULT_BRANCH:refs/remotes/origin/$DEFAULT_BRANCH" || true
    fi
}

cmd_verify() {
    unshallow
    local base
    base=$(base_for_event)
    if [ -z "${AAHP_BASE:-}" ] && adds_nothing_to "$base"; then
        # No range to judge, and no pass for nothing: the whole handoff and every agent
        # file as HEAD holds them.
        echo "git-aahp: ${GITHUB_REF:-HEAD} adds no commit $base lacks; judging the handoff and every agent file at HEAD"
        local rc=0
        echo "git aahp verify"
        git aahp verify || rc=$?
        echo "git aahp lint --all"
        local lint_rc=0
        git aahp lint --all || lint_rc=$?
        [ "$rc" -ne 0 ] || rc=$lint_rc
        return "$rc"
    fi
    local args=(verify --level "${AAHP_LEVEL:-ci}")
    [ -n "$base" ] && args+=(--base "$base")
    echo "git aahp ${args[*]}"
    git aahp "${args[@]}"
}

cmd_sarif() {
    local out=${SARIF_FILE:?SARIF_FILE is not set}
    local rc=0
    git aahp lint --all --format sarif >"$out" || rc=$?
    if [ "$rc" -gt 1 ]; then
        echo "::error title=git-aahp::lint could not run (exit $rc); no SARIF written"
        exit "$rc"
    fi
    echo "git-aahp: SARIF written to $out (lint exit $rc)"
}

cmd_summary() {
    local summary=${GITHUB_STEP_SUMMARY:?GITHUB_STEP_SUMMARY is not set}
    local base
    base=$(base_for_event)
    if [ -z "$base" ]; then
        case "${GITHUB_EVENT_NAME:-}" in
        pull_request | pull_request_target) base="origin/${GITHUB_BASE_REF:?}" ;;
        merge_group) base=${MERGE_GROUP_BASE:-} ;;
        push) [ "${EVENT_BEFORE:-$zeros}" != "$zeros" ] && base=$EVENT_BEFORE ;;
        esac
    fi
    if [ -z "$base" ]; then
        printf '### git aahp review\n\nNo base for a %s event, so there is no review work-list.\n' \
            "${GITHUB_EVENT_NAME:-unknown}" >>"$summary"
        return
    fi
    if [ -z "${AAHP_BASE:-}" ] && adds_nothing_to "$base"; then
        printf '### git aahp review\n\n%s adds no commit %s lacks, so there is no review work-list.\n' \
            "${GITHUB_REF:-HEAD}" "$base" >>"$summary"
        return
    fi
    local rc=0
    git aahp review --base "$base" >>"$summary" || rc=$?
    if [ "$rc" -ne 0 ]; then
        echo "::warning title=git-aahp::review --base $base exited $rc; the job summary has no work-list"
    fi
}

case "${1:-}" in
verify) cmd_verify ;;
sarif) cmd_sarif ;;
summary) cmd_summary ;;
*)
    echo "usage: run.sh verify|sarif|summary" >&2
    exit 2
    ;;
esac
