#!/bin/sh
# install.sh: build git-aahp from this checkout and install it with its man pages and
# shell completions, then check that `git aahp` reaches it.
#
#   PREFIX   install root (default: cargo's own: $CARGO_INSTALL_ROOT, else $CARGO_HOME,
#            else $HOME/.cargo); the binary goes to $PREFIX/bin
#   MANDIR   man page root (default: $PREFIX/share/man); the pages go to $MANDIR/man1
#   BASH_COMPLETION_DIR  where the bash completion goes (default: a directory that
#            bash-completion 2.11 and later search, see below)
#
# Needs git and a Rust toolchain (cargo); crates come from crates.io, pinned by Cargo.lock.
# Running it again reinstalls the same files.
set -eu

say() { printf '%s\n' "$*"; }
note() { printf 'note: %s\n' "$*"; }
die() {
    printf 'install.sh: %s\n' "$*" >&2
    exit 1
}
# A path as it may stand between double quotes in a line the user pastes into a shell: `\`,
# `"`, `$` and backquotes escaped, so a directory named `$(…)` is a name, never a command.
dq() { printf '%s' "$1" | sed 's/[\\"$`]/\\&/g'; }

here=$(cd "$(dirname "$0")" && pwd)
command -v cargo >/dev/null 2>&1 || die "cargo not found; install a Rust toolchain first (https://rustup.rs)"
command -v git >/dev/null 2>&1 || die "git not found; git-aahp runs as a git subcommand"

# Absolute paths, so the checks below compare like with like.
# The root `cargo install` itself would use, so the binary lands in the `bin` directory
# rustup already put on PATH.
PREFIX=${PREFIX:-${CARGO_INSTALL_ROOT:-${CARGO_HOME:-$HOME/.cargo}}}
mkdir -p "$PREFIX"
PREFIX=$(cd "$PREFIX" && pwd)
MANDIR=${MANDIR:-$PREFIX/share/man}
mkdir -p "$MANDIR/man1"
MANDIR=$(cd "$MANDIR" && pwd)
bin="$PREFIX/bin/git-aahp"

say "==> building and installing git-aahp into $PREFIX/bin"
cargo install --locked --path "$here" --root "$PREFIX"
[ -x "$bin" ] || die "cargo install did not produce $bin"

say "==> man pages into $MANDIR/man1"
"$bin" generate-man --quiet "$MANDIR/man1"

say "==> shell completions"
# bash-completion 2.11 (Debian 12) loads completions on demand from
# ${BASH_COMPLETION_USER_DIR:-${XDG_DATA_HOME:-~/.local/share}/bash-completion}/completions and
# from <dir>/bash-completion/completions for each <dir> of XDG_DATA_DIRS (default
# /usr/local/share:/usr/share); only 2.12 and later also look next to PATH entries. So the
# file goes to $PREFIX/share when that is one of the XDG data directories, else to the user
# directory. The file serves both `git-aahp` and, through git's own completion, `git aahp`.
if [ -n "${BASH_COMPLETION_DIR:-}" ]; then
    bash_dir=$BASH_COMPLETION_DIR
else
    case ":${XDG_DATA_DIRS:-/usr/local/share:/usr/share}:" in
    *":$PREFIX/share:"* | *":$PREFIX/share/:"*) bash_dir="$PREFIX/share/bash-completion/completions" ;;
    *) bash_dir="${BASH_COMPLETION_USER_DIR:-${XDG_DATA_HOME:-$HOME/.local/share}/bash-completion}/completions" ;;
    esac
fi
zsh_dir="$PREFIX/share/zsh/site-functions"
fish_dir="$PREFIX/share/fish/vendor_completions.d"
mkdir -p "$bash_dir" "$zsh_dir" "$fish_dir"
"$bin" completions bash >"$bash_dir/git-aahp.tmp" && mv "$bash_dir/git-aahp.tmp" "$bash_dir/git-aahp"
"$bin" completions zsh >"$zsh_dir/_git-aahp.tmp" && mv "$zsh_dir/_git-aahp.tmp" "$zsh_dir/_git-aahp"
"$bin" completions fish >"$fish_dir/git-aahp.fish.tmp" && mv "$fish_dir/git-aahp.fish.tmp" "$fish_dir/git-aahp.fish"
say "    $bash_dir/git-aahp"
say "    $zsh_dir/_git-aahp (zsh: add $zsh_dir to fpath)"
say "    $fish_dir/git-aahp.fish"
if [ -n "${BASH_COMPLETION_DIR:-}" ]; then
    note "bash-completion searches $BASH_COMPLETION_DIR only if you load it, e.g. in ~/.bashrc:"
    note "  . \"$(dq "$BASH_COMPLETION_DIR")/git-aahp\""
fi

say "==> checking the installation"
case ":$PATH:" in
*":$PREFIX/bin:"*) on_path=yes ;;
*) on_path=no ;;
esac
# git finds `git-aahp` on PATH; the check uses the freshly installed one either way.
version=$(PATH="$PREFIX/bin:$PATH" git aahp --version) || die "\`git aahp --version\` failed"
say "    git aahp --version: $version"
PATH="$PREFIX/bin:$PATH" git aahp -h >/dev/null || die "\`git aahp -h\` failed"
if [ "$on_path" = no ]; then
    note "$PREFIX/bin is not on PATH, so \`git aahp\` cannot find git-aahp yet; add this line to"
    note "your shell's profile (~/.profile, ~/.bashrc, ~/.zshrc) and open a new shell:"
    note "  export PATH=\"$(dq "$PREFIX/bin"):\$PATH\""
fi

# `git aahp --help` is turned by git into `man git-aahp`, which needs the page on MANPATH.
page="$MANDIR/man1/git-aahp.1"
if ! command -v man >/dev/null 2>&1; then
    note "man is not installed, so \`git aahp --help\` cannot show the page; \`git aahp -h\` works"
elif found=$(man -w git-aahp 2>/dev/null) && [ "$found" = "$page" ]; then
    say "    git aahp --help: shows $found"
elif [ -n "${found:-}" ]; then
    note "man finds another git-aahp page first ($found); put $MANDIR first on MANPATH:"
    note "  export MANPATH=\"$(dq "$MANDIR"):\${MANPATH:-}\""
else
    note "man does not search $MANDIR, so \`git aahp --help\` cannot show the page yet:"
    note "  export MANPATH=\"$(dq "$MANDIR"):\${MANPATH:-}\""
fi
say "git-aahp is installed."
