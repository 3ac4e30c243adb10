#!/usr/bin/env bash
# Installs git-aahp for the composite action (action.yml): a release binary whose SHA-256 is
# checked against the release's SHA256SUMS, else `cargo install --locked` of the action's own
# source (its checkout, or the repository's tag vVERSION; never a registry's crate). Puts its
# directory on PATH for the later steps ($GITHUB_PATH).
#
#   AAHP_VERSION      version to install: `0.1.0` or `v0.1.0`; empty: the action's own tag
#                     when it is one (ACTION_REF), else built from the action's source
#   ACTION_REF        the ref the action was used at (github.action_ref)
#   ACTION_REPOSITORY owner/name of the action (github.action_repository)
#   ACTION_PATH       the action's checkout (github.action_path)
#   AAHP_RELEASE_URL  where release assets are (default:
#                     https://github.com/$ACTION_REPOSITORY/releases/download); tests use file://
#   RUNNER_OS, RUNNER_ARCH, RUNNER_TEMP, GITHUB_PATH  as GitHub sets them
#
# A checksum that does not match is a failure, never a reason to fall back: the download is
# not what the release published.
set -euo pipefail

say() { printf 'git-aahp install: %s\n' "$*"; }
die() {
    printf '::error title=git-aahp install::%s\n' "$*"
    exit 1
}

dest="${RUNNER_TEMP:?RUNNER_TEMP is not set}/git-aahp"
mkdir -p "$dest/bin"

version=${AAHP_VERSION:-}
if [ -z "$version" ]; then
    case "${ACTION_REF:-}" in
    v[0-9]*.[0-9]*.[0-9]*) version=$ACTION_REF ;;
    esac
fi
version=${version#v}

case "${RUNNER_OS:-}-${RUNNER_ARCH:-}" in
Linux-X64) target=x86_64-unknown-linux-gnu ;;
Linux-ARM64) target=aarch64-unknown-linux-gnu ;;
macOS-ARM64) target=aarch64-apple-darwin ;;
macOS-X64) target=x86_64-apple-darwin ;;
Windows-X64) target=x86_64-pc-windows-msvc ;;
*) target= ;;
esac

sha256() {
    if command -v sha256sum >/dev/null 2>&1; then
        sha256sum "$1" | cut -d' ' -f1
    else
        shasum -a 256 "$1" | cut -d' ' -f1
    fi
}

from_release() {
    local base="${AAHP_RELEASE_URL:-https://github.com/${ACTION_REPOSITORY:?}/releases/download}/v$version"
    local asset="git-aahp-v$version-$target.tar.gz"
    local tmp
    tmp=$(mktemp -d)
    say "downloading $asset"
    curl -fsSL --retry 3 -o "$tmp/$asset" "$base/$asset" || return 1
    curl -fsSL --retry 3 -o "$tmp/SHA256SUMS" "$base/SHA256SUMS" ||
        die "the release v$version has $asset but no SHA256SUMS to check it against"
    local want got
    want=$(awk -v f="$asset" '$2 == f || $2 == "*" f { print $1 }' "$tmp/SHA256SUMS")
    [ -n "$want" ] || die "SHA256SUMS of v$version does not list $asset"
    got=$(sha256 "$tmp/$asset")
    [ "$want" = "$got" ] || die "checksum mismatch for $asset: SHA256SUMS says $want, the download is $got"
    tar -xzf "$tmp/$asset" -C "$tmp" || die "cannot unpack $asset"
    local exe=git-aahp
    [ "$target" = x86_64-pc-windows-msvc ] && exe=git-aahp.exe
    install -m 0755 "$tmp/git-aahp-v$version-$target/$exe" "$dest/bin/$exe" ||
        die "$asset does not hold git-aahp-v$version-$target/$exe"
    say "checksum verified ($got)"
}

# Builds from the action's own source, never from a registry: git-aahp is published as this
# repository's releases and tags only, so a crate of that name on crates.io is anyone's, and
# building it would hand the gate to whoever owns the name (review atk41 #1). The action's
# checkout is used when it is the version asked for, else the repository's tag.
from_source() {
    command -v cargo >/dev/null 2>&1 || die "no release binary to use and cargo is not installed"
    if [ -n "$version" ] && [ "${ACTION_REF:-}" != "v$version" ] && [ "${ACTION_REF:-}" != "$version" ]; then
        say "building git-aahp $version from tag v$version of ${ACTION_REPOSITORY:?} with cargo install --locked"
        cargo install --locked --root "$dest" --git "https://github.com/${ACTION_REPOSITORY:?}" --tag "v$version" git-aahp ||
            die "could not build git-aahp from tag v$version of $ACTION_REPOSITORY"
    else
        say "building git-aahp from the action's source with cargo install --locked"
        cargo install --locked --root "$dest" --path "${ACTION_PATH:?}"
    fi
}

if [ -n "$version" ] && [ -n "$target" ] && from_release; then
    :
else
    [ -n "$version" ] && [ -n "$target" ] && say "no release binary for v$version on $target; falling back to cargo"
    from_source
fi

"$dest/bin/git-aahp" --version >/dev/null || die "the installed git-aahp does not run"
echo "$dest/bin" >>"${GITHUB_PATH:?GITHUB_PATH is not set}"
say "installed $("$dest/bin/git-aahp" --version) in $dest/bin"
