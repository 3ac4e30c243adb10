//! The remote lease's git calls (SPEC §6, issue #17): writing the lease commit, a
//! compare-and-swap push of one ref (`--force-with-lease=<ref>:<expected>` with `--atomic`),
//! reading a remote ref (`ls-remote`, bounded in time) and fetching it to read its holder.

use std::io::Read;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use gix::ObjectId;

use super::{GitError, Repo};

/// How long a remote call may take before it is abandoned (a hung server must not hang a
/// session command).
pub const REMOTE_TIMEOUT: Duration = Duration::from_secs(30);

/// The outcome of a compare-and-swap push.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CasPush {
    /// The remote ref now holds the new value (or is deleted).
    Done,
    /// The remote ref did not hold the expected value: nothing changed. (A push the remote
    /// refused for another reason is an error.)
    Rejected,
}

/// Whether a failed compare-and-swap push lost the race: the remote ref did not hold the
/// expected value (`[rejected] (stale info)`, or `(fetch first)` from an older git). A push
/// the remote itself refused (`[remote rejected]`: a pre-receive hook, a protected ref, no
/// permission) did not: retrying it, or reading it as another clone's lease or counter,
/// would misreport a policy as a race.
fn lost_race(stdout: &str, stderr: &str) -> bool {
    let text = format!("{stdout}\n{stderr}");
    // Two pushes meeting inside the remote: the loser's ref transaction fails there and is
    // reported as `[remote rejected]` too, with the ref's lock or old value as the reason.
    let raced = [
        "stale info",
        "(fetch first)",
        "reference already exists",
        "cannot lock ref",
        "incorrect old value",
    ]
    .iter()
    .any(|r| text.contains(r));
    if raced {
        return true;
    }
    !text.contains("[remote rejected]") && text.contains("[rejected]")
}

/// The porcelain lines of refs the remote refused (`!` lines), for the error.
fn refusal_lines(stdout: &str) -> String {
    let mut out = String::new();
    for l in stdout.lines().filter(|l| l.starts_with('!')) {
        out.push_str(&l.replace('\t', " "));
        out.push('\n');
    }
    out
}

impl Repo {
    /// Writes a parentless commit whose tree holds `lease.json` = `json` (not signed; a
    /// neutral identity when none is configured) and returns its id. Uses a temporary index
    /// in `tmp`, so the real index and refs are untouched.
    pub fn lease_commit(
        &self,
        json: &[u8],
        message: &str,
        tmp: &Path,
    ) -> Result<ObjectId, GitError> {
        self.one_file_commit("lease.json", json, message, tmp)
    }

    /// Writes a parentless commit whose tree holds one file, `name` = `bytes` (see
    /// [`Repo::lease_commit`]).
    pub fn one_file_commit(
        &self,
        name: &str,
        bytes: &[u8],
        message: &str,
        tmp: &Path,
    ) -> Result<ObjectId, GitError> {
        let blob_path = tmp.join(name);
        std::fs::write(&blob_path, bytes).map_err(|e| GitError::Read {
            action: format!("write {name}"),
            source: Box::new(e),
        })?;
        let blob_arg = blob_path.to_string_lossy().into_owned();
        let args = ["hash-object", "-w", "--no-filters", blob_arg.as_str()];
        let blob = self.run(&args, &[])?;
        let blob = blob.trim().to_string();
        let index = tmp.join("lease.index").to_string_lossy().into_owned();
        let env = [("GIT_INDEX_FILE", index.as_str())];
        let info = format!("100644,{blob},{name}");
        self.run(&["read-tree", "--empty"], &env)?;
        self.run(
            &["update-index", "--add", "--cacheinfo", info.as_str()],
            &env,
        )?;
        let tree = self.run(&["write-tree"], &env)?;
        let tree = tree.trim().to_string();
        let args = [
            "-c",
            "user.name=git-aahp",
            "-c",
            "user.email=git-aahp@localhost",
            "commit-tree",
            "--no-gpg-sign",
            tree.as_str(),
            "-m",
            message,
        ];
        let out = self.run(&args, &[])?;
        Self::parse_id(&args, &out)
    }

    /// Sets `refname` on `remote` to `new` (`None`: deletes it) only if it holds `expected`
    /// (`None`: only if it does not exist): `git push --atomic --porcelain --no-verify
    /// --force-with-lease=<ref>:<expected>`. A refusal for the stale value is
    /// [`CasPush::Rejected`]; any other failure (no such remote, network) is an error.
    pub fn push_cas(
        &self,
        remote: &str,
        refname: &str,
        expected: Option<ObjectId>,
        new: Option<ObjectId>,
    ) -> Result<CasPush, GitError> {
        let lease = format!(
            "--force-with-lease={refname}:{}",
            expected.map(|e| e.to_string()).unwrap_or_default()
        );
        let spec = format!(
            "{}:{refname}",
            new.map(|n| n.to_string()).unwrap_or_default()
        );
        let args = [
            "push",
            "--atomic",
            "--porcelain",
            "--no-verify",
            lease.as_str(),
            "--",
            remote,
            spec.as_str(),
        ];
        let (code, stdout, stderr) = self.run_bounded(&args, REMOTE_TIMEOUT)?;
        if code == Some(0) {
            return Ok(CasPush::Done);
        }
        if lost_race(&stdout, &stderr) {
            return Ok(CasPush::Rejected);
        }
        Err(GitError::Command {
            args: args.join(" "),
            status: code.map_or_else(|| "timed out".into(), |c| format!("exit status: {c}")),
            // The porcelain line carries the remote's verdict (`[remote rejected] (pre-receive
            // hook declined)`); stderr the `remote:` lines saying why.
            stderr: format!("{}{stderr}", refusal_lines(&stdout)),
        })
    }

    /// The value of `refname` on `remote` (`git ls-remote`, bounded by [`REMOTE_TIMEOUT`]).
    pub fn remote_ref(&self, remote: &str, refname: &str) -> Result<Option<ObjectId>, GitError> {
        Ok(self
            .remote_refs(remote, refname)?
            .into_iter()
            .find(|(name, _)| name == refname)
            .map(|(_, id)| id))
    }

    /// The refs of `remote` matching the `ls-remote` pattern `pattern` (`git ls-remote
    /// --refs`, bounded by [`REMOTE_TIMEOUT`]): name and id each.
    pub fn remote_refs(
        &self,
        remote: &str,
        pattern: &str,
    ) -> Result<Vec<(String, ObjectId)>, GitError> {
        let args = ["ls-remote", "--refs", "--", remote, pattern];
        let (code, stdout, stderr) = self.run_bounded(&args, REMOTE_TIMEOUT)?;
        if code != Some(0) {
            return Err(GitError::Command {
                args: args.join(" "),
                status: code.map_or_else(|| "timed out".into(), |c| format!("exit status: {c}")),
                stderr,
            });
        }
        Ok(stdout
            .lines()
            .filter_map(|l| l.split_once('\t'))
            .filter_map(|(id, name)| {
                Some((name.to_string(), ObjectId::from_hex(id.as_bytes()).ok()?))
            })
            .collect())
    }

    /// Fetches `refname` from `remote` into `local` (a private ref) and returns the
    /// `lease.json` its commit holds, with the commit id; `None` when the remote has no such
    /// ref.
    pub fn fetch_lease(
        &self,
        remote: &str,
        refname: &str,
        local: &str,
    ) -> Result<Option<(ObjectId, Vec<u8>)>, GitError> {
        self.fetch_ref_file(remote, refname, local, "lease.json")
    }

    /// Fetches `refname` from `remote` into `local` (a private ref) and returns the file
    /// `name` of its commit's tree (empty when absent), with the commit id; `None` when the
    /// remote has no such ref.
    pub fn fetch_ref_file(
        &self,
        remote: &str,
        refname: &str,
        local: &str,
        name: &str,
    ) -> Result<Option<(ObjectId, Vec<u8>)>, GitError> {
        let spec = format!("+{refname}:{local}");
        let args = [
            "fetch",
            "-q",
            "--no-tags",
            "--no-write-fetch-head",
            "--",
            remote,
            spec.as_str(),
        ];
        let (code, _, stderr) = self.run_bounded(&args, REMOTE_TIMEOUT)?;
        if code != Some(0) {
            if stderr.contains("couldn't find remote ref") {
                return Ok(None);
            }
            return Err(GitError::Command {
                args: args.join(" "),
                status: code.map_or_else(|| "timed out".into(), |c| format!("exit status: {c}")),
                stderr,
            });
        }
        let Some(id) = self.find_ref(local)? else {
            return Ok(None);
        };
        let bytes = self.blob_at(id, name)?.unwrap_or_default();
        Ok(Some((id, bytes)))
    }

    /// Runs git, killing it after `timeout`: returns its exit code (`None` when killed),
    /// stdout and stderr.
    fn run_bounded(
        &self,
        args: &[&str],
        timeout: Duration,
    ) -> Result<(Option<i32>, String, String), GitError> {
        let mut cmd: Command = self.command();
        cmd.args(args)
            .env("GIT_TERMINAL_PROMPT", "0")
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        let spawn_err = |source| GitError::Spawn {
            args: args.join(" "),
            source,
        };
        let mut child = cmd.spawn().map_err(spawn_err)?;
        let drain = |r: Option<Box<dyn Read + Send>>| {
            std::thread::spawn(move || {
                let mut s = Vec::new();
                if let Some(mut r) = r {
                    let _ = r.read_to_end(&mut s);
                }
                String::from_utf8_lossy(&s).into_owned()
            })
        };
        let out = drain(
            child
                .stdout
                .take()
                .map(|s| Box::new(s) as Box<dyn Read + Send>),
        );
        let err = drain(
            child
                .stderr
                .take()
                .map(|s| Box::new(s) as Box<dyn Read + Send>),
        );
        let start = Instant::now();
        let code = loop {
            if let Some(status) = child.try_wait().map_err(spawn_err)? {
                break status.code();
            }
            if start.elapsed() > timeout {
                let _ = child.kill();
                let _ = child.wait();
                break None;
            }
            std::thread::sleep(Duration::from_millis(5));
        };
        Ok((
            code,
            out.join().unwrap_or_default(),
            err.join().unwrap_or_default(),
        ))
    }
}
