#!/usr/bin/env bash
# `cargo package --locked` succeeds and the packaged crate builds: what `cargo publish` and
# `cargo install git-aahp` need. Run by .ci/run after the tests, so the dependencies are
# already compiled in the target directory the verification build shares.
#
# Also checks that the package holds what the binary compiles in (templates, schemas, hook
# shims, the BIP-39 word list and the notices that credit it), so a file left out of Cargo.toml's `include` fails here, not for a user.
set -euo pipefail
cd "$(dirname "$0")/.."
list=$(cargo package --locked --list --allow-dirty 2>/dev/null)
missing=0
for f in templates/STATUS.md templates/aiignore schemas/manifest.schema.json hooks/pre-commit hooks/pre-push Cargo.lock NOTICES.md src/lint/rules/bip39_english.txt; do
    if ! grep -qx "$f" <<<"$list"; then
        echo "package: $f is not in the package" >&2
        missing=1
    fi
done
[ "$missing" = 0 ] || exit 1
cargo package --locked --allow-dirty
echo "package: 1 passed, 0 failed"
