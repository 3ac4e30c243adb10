//! `git aahp hook NAME`: what the installed hook shims run. `pre-commit` is `verify --level
//! precommit` (every handoff directory the change touches, and staged agent instruction
//! files); `pre-merge-commit` is the same check on the result of a merge git commits without
//! a conflict (for which git runs no pre-commit hook), `pre-applypatch` on the patch `git am`
//! applied before it commits it; `pre-push` is `verify --level prepush` over the refs git writes to the hook's
//! stdin (or, when none are named, the unpushed commits of the branch). When nothing is
//! there to judge the hook passes silently: the repository, or the part of it the change
//! touches, does not use AAHP.

use std::io::Read;

use super::Context;
use super::verify::{self, Level, VerifyArgs, VerifyReport};
use crate::error::{Error, Result};

/// Run a git hook's check (called by the shims that `git aahp hooks install` writes).
#[derive(Debug, Clone, clap::Args)]
pub struct HookArgs {
    /// The hook being run.
    #[arg(value_enum)]
    pub name: HookName,
    /// Arguments git passes to the hook: for pre-push the remote's name (its URL when it
    /// has none) and URL; the name decides which remote-tracking refs count as pushed.
    #[arg(trailing_var_arg = true, allow_hyphen_values = true, hide = true)]
    pub rest: Vec<String>,
}

/// The hooks `git aahp` implements.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum HookName {
    /// Gate the staged content before a commit.
    PreCommit,
    /// Gate the commits being pushed.
    PrePush,
    /// Gate the result of a merge git commits without a conflict, as `pre-commit` gates a
    /// concluded one: git runs no pre-commit hook for it.
    PreMergeCommit,
    /// Gate the patch `git am` applied to the index before it is committed, as
    /// `pre-commit` gates a staged change: git runs no pre-commit hook for it.
    PreApplypatch,
}

/// Runs the hook, returning `None` when it judged nothing: no handoff directory is
/// configured, present at the root or touched by the change, and no agent instruction file
/// is staged.
pub fn run(ctx: &Context, args: &HookArgs) -> Result<Option<VerifyReport>> {
    let report = match args.name {
        HookName::PreCommit | HookName::PreMergeCommit | HookName::PreApplypatch => verify::run(
            ctx,
            &VerifyArgs {
                level: Some(Level::Precommit),
                base: None,
                ..VerifyArgs::default()
            },
        ),
        HookName::PrePush => {
            let mut stdin = String::new();
            std::io::stdin()
                .read_to_string(&mut stdin)
                .map_err(|source| Error::Read {
                    path: "pre-push stdin".into(),
                    source,
                })?;
            // The pre-commit framework does not forward git's ref list; it names the range in
            // PRE_COMMIT_FROM_REF (remote side) and PRE_COMMIT_TO_REF (local side). On a push
            // holding the root commit it names none: the empty list then judges the branch's
            // commits that no remote-tracking ref holds (verify's prepush level), never nothing.
            if stdin.trim().is_empty()
                && let (Ok(from), Ok(to)) = (
                    std::env::var("PRE_COMMIT_FROM_REF"),
                    std::env::var("PRE_COMMIT_TO_REF"),
                )
            {
                stdin = format!("{to} {to} {from} {from}\n");
            }
            // The remote pushed to: git's first argument, or the pre-commit framework's
            // variable (it passes none). Unknown, every remote-tracking ref counts.
            let remote = args
                .rest
                .first()
                .cloned()
                .or_else(|| std::env::var("PRE_COMMIT_REMOTE_NAME").ok())
                .filter(|r| !r.trim().is_empty());
            verify::run_with_push_lines(
                ctx,
                &VerifyArgs {
                    level: Some(Level::Prepush),
                    base: None,
                    ..VerifyArgs::default()
                },
                Some(&stdin),
                remote.as_deref(),
            )
        }
    };
    match report {
        Ok(r) if r.layers.is_empty() => Ok(None),
        Ok(r) => Ok(Some(r)),
        // Nothing to judge at all: a repository that does not use AAHP (yet).
        Err(Error::NoHandoffDir(_)) => Ok(None),
        Err(e) => Err(e),
    }
}
