//! `git aahp trust list | decay | verify`: the claims of TRUST.md, their expiry, decay, and
//! re-verification by running a command (SPEC §3.10). The table logic is
//! [`crate::handoff::trust`]; this file reads, runs, writes and reports.

use std::io::{self, Write};
use std::process::{Command, Stdio};

use serde::Serialize;

use super::Context;
use super::archive::{file_text, planned_manifest, write_manifest};
use crate::clock;
use crate::error::{Error, ExitStatus, Result};
use crate::handoff::manifest::FileState;
use crate::handoff::manifest::Manifest;
use crate::handoff::trust::{
    self, DEFAULT_TTL_DAYS, TrustLedger, Verification, parse_ttl, record_verification,
};
use crate::handoff::trust_checks::{
    self, Builtin, CHECK_TIME_LIMIT_SECS, CONFIG_FILE, Resolved, TrustPolicy,
};
use crate::handoff::{HandoffDir, Snapshot, Source, write_atomic};
use crate::output::{Report, Style, boundary, escape_untrusted};
use crate::transaction::SessionClaim;
use crate::transaction::writer::HandoffWrite;

/// TRUST.md's file name.
pub const TRUST_FILE: &str = "TRUST.md";
/// Longest command shown in an evidence note, in characters.
const EVIDENCE_COMMAND_MAX: usize = 80;

/// Show, decay or re-verify the claims in TRUST.md.
#[derive(Debug, Clone, clap::Args)]
pub struct TrustArgs {
    #[command(subcommand)]
    pub action: Option<TrustAction>,
    /// The session id `begin` printed: `decay` and `verify` write only under this session's
    /// HANDOFF.lock (or one taken for the write when no session holds it).
    #[arg(long, env = "AAHP_SESSION_ID", global = true)]
    pub session_id: Option<String>,
}

/// What `git aahp trust` does (default: `list`).
#[derive(Debug, Clone, clap::Subcommand)]
pub enum TrustAction {
    /// List every claim with its computed expiry (Last Verified + TTL, or Expires).
    List,
    /// Rewrite expired `verified` claims to `assumed`, changing only those cells.
    Decay,
    /// Re-verify a claim by running a command; it becomes `verified` only if the command
    /// succeeds.
    Verify(TrustVerifyArgs),
}

/// Arguments of `git aahp trust verify`.
#[derive(Debug, Clone, clap::Args)]
pub struct TrustVerifyArgs {
    /// The property, as in the table's Property column (case and `**`/`` ` `` markup are
    /// ignored). A property not yet in TRUST.md is refused unless `--new` is given.
    pub property: String,
    /// Add the property as a new claim when TRUST.md has no row for it (without it, an
    /// unknown property — a typo — is refused, exit 1, before the command runs).
    #[arg(long)]
    pub new: bool,
    /// How long the verification holds: `7d`, `2w`, `48h` [default: the claim's TTL, else
    /// `7d`].
    #[arg(long, value_name = "TTL")]
    pub ttl: Option<String>,
    /// The provenance to record [default: `test_verified` when the command runs tests, else
    /// `tool_verified`].
    #[arg(long, value_parser = ["test_verified", "tool_verified"])]
    pub provenance: Option<String>,
    /// The agent recorded in the Agent column.
    #[arg(long)]
    pub agent: Option<String>,
    /// The command that proves the claim, after `--`. It runs without a shell, in the
    /// current directory; its exit status is the evidence.
    #[arg(last = true, value_name = "CMD")]
    pub command: Vec<String>,
}

/// One claim as listed.
#[derive(Debug, Serialize)]
pub struct ClaimRow {
    /// The property.
    #[serde(serialize_with = "boundary::line")]
    pub property: String,
    /// Its status word.
    #[serde(serialize_with = "boundary::line")]
    pub status: String,
    /// Its provenance, if recorded.
    #[serde(serialize_with = "boundary::opt_line")]
    pub provenance: Option<String>,
    /// When it was last verified.
    #[serde(serialize_with = "boundary::opt_line")]
    pub last_verified: Option<String>,
    /// Its TTL in days.
    pub ttl_days: Option<i64>,
    /// The computed expiry (earlier of Last Verified + TTL and Expires).
    pub expires: Option<String>,
    /// True when the expiry is before today.
    pub expired: bool,
    /// True when it is `verified` and expired: `decay` turns it into `assumed`.
    pub decays: bool,
    /// The heading above its table.
    #[serde(serialize_with = "boundary::opt_line")]
    pub section: Option<String>,
    /// 1-based line in TRUST.md.
    pub line: usize,
}

/// A changed claim.
#[derive(Debug, Serialize)]
pub struct Changed {
    /// The property.
    pub property: String,
    /// 1-based line in TRUST.md.
    pub line: usize,
}

/// The outcome of `trust verify`.
#[derive(Debug, Serialize)]
pub struct VerifyOutcome {
    /// The property.
    pub property: String,
    /// The command run, as given.
    pub command: Vec<String>,
    /// Its exit code (`None` when killed by a signal).
    pub exit_code: Option<i32>,
    /// Whether it succeeded.
    pub passed: bool,
    /// The status before (`None` for a new claim).
    pub previous_status: Option<String>,
    /// The status now.
    pub status: String,
    /// The provenance recorded (only on success).
    pub provenance: Option<String>,
    /// The expiry now.
    pub expires: Option<String>,
    /// The evidence note written.
    pub evidence: String,
    /// True when a row was added.
    pub added: bool,
    /// The last lines of the command's output (on failure).
    pub output_tail: Vec<String>,
}

/// The result of `git aahp trust`.
#[derive(Debug, Serialize)]
pub struct TrustReport {
    /// `list`, `decay` or `verify`.
    pub action: &'static str,
    /// Repository-relative path of TRUST.md.
    pub path: String,
    /// The day expiry is judged against.
    pub today: String,
    /// `list`: every claim.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub claims: Option<Vec<ClaimRow>>,
    /// `decay`: the claims that went from `verified` to `assumed`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub decayed: Option<Vec<Changed>>,
    /// `verify`: what was run and recorded.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub verify: Option<VerifyOutcome>,
    /// Files written.
    pub written: Vec<String>,
}

impl Report for TrustReport {
    fn command(&self) -> &'static str {
        "trust"
    }

    fn write_human(&self, w: &mut dyn Write, style: &Style) -> io::Result<()> {
        if let Some(claims) = &self.claims {
            write_list(w, *style, &self.path, claims)?;
        }
        if let Some(decayed) = &self.decayed {
            if decayed.is_empty() {
                writeln!(w, "{}: no expired verified claims", self.path)?;
            }
            for c in decayed {
                writeln!(
                    w,
                    "{}:{}: verified → assumed: {}",
                    self.path,
                    c.line,
                    escape_untrusted(&c.property)
                )?;
            }
        }
        if let Some(v) = &self.verify {
            write_verify(w, *style, &self.path, v)?;
        }
        if !self.written.is_empty() {
            writeln!(w, "wrote {}", self.written.join(", "))?;
        }
        Ok(())
    }

    fn status(&self) -> ExitStatus {
        match &self.verify {
            Some(v) if !v.passed => ExitStatus::Findings,
            _ => ExitStatus::Success,
        }
    }
}

fn write_list(w: &mut dyn Write, style: Style, path: &str, claims: &[ClaimRow]) -> io::Result<()> {
    let decaying = claims.iter().filter(|c| c.decays).count();
    writeln!(
        w,
        "{path}: {} claims, {decaying} expired verified",
        claims.len()
    )?;
    if claims.is_empty() {
        return Ok(());
    }
    writeln!(
        w,
        "{}",
        style.bold(&format!(
            "{:<5} {:<10} {:<15} {:<11} PROPERTY",
            "LINE", "STATUS", "PROVENANCE", "EXPIRES"
        ))
    )?;
    for c in claims {
        let expires = c.expires.as_deref().unwrap_or("-");
        let expires = if c.expired {
            style.warn(&format!("{expires:<10}!"))
        } else {
            format!("{expires:<11}")
        };
        writeln!(
            w,
            "{:<5} {:<10} {:<15} {expires} {}",
            c.line,
            escape_untrusted(&c.status),
            escape_untrusted(c.provenance.as_deref().unwrap_or("-")),
            escape_untrusted(&c.property)
        )?;
    }
    if decaying > 0 {
        writeln!(
            w,
            "hint: `git aahp trust decay` marks expired verified claims `assumed`"
        )?;
    }
    Ok(())
}

fn write_verify(w: &mut dyn Write, style: Style, path: &str, v: &VerifyOutcome) -> io::Result<()> {
    let verdict = if v.passed {
        style.ok("passed")
    } else {
        style.error("failed")
    };
    writeln!(w, "{verdict}: {}", escape_untrusted(&v.evidence))?;
    for line in &v.output_tail {
        writeln!(w, "  | {}", escape_untrusted(line))?;
    }
    let before = v.previous_status.as_deref().unwrap_or("(new)");
    writeln!(
        w,
        "{path}: {}: {before} → {}{}",
        escape_untrusted(&v.property),
        v.status,
        v.expires
            .as_deref()
            .map(|e| format!(", expires {e}"))
            .unwrap_or_default()
    )
}

/// Runs `git aahp trust`.
pub fn run(ctx: &Context, args: &TrustArgs) -> Result<TrustReport> {
    let repo = ctx.repo()?;
    let dir = ctx.existing_handoff()?;
    let path = dir.path_of(TRUST_FILE);
    let today = clock::utc_date(ctx.now);
    let claim = SessionClaim {
        session_id: args.session_id.clone(),
        agent: None,
    };
    let mut report = TrustReport {
        action: "list",
        path: path.clone(),
        today: today.to_string(),
        claims: None,
        decayed: None,
        verify: None,
        written: Vec::new(),
    };
    let writes = [TRUST_FILE, crate::handoff::MANIFEST];
    match args.action.clone().unwrap_or(TrustAction::List) {
        TrustAction::List => {
            let snap = dir.snapshot(repo, Source::Worktree)?;
            let text = file_text(&dir, &snap, TRUST_FILE)?
                .ok_or_else(|| Error::invalid(&path, None, "not found"))?;
            let ledger = TrustLedger::parse(&path, &text)?;
            report.claims = Some(list(&ledger, today));
        }
        TrustAction::Decay => {
            report.action = "decay";
            let write =
                HandoffWrite::begin(repo, &dir, &claim, ctx.now, "git aahp trust decay", &writes)?;
            let snap = dir.snapshot(repo, Source::Worktree)?;
            let text = file_text(&dir, &snap, TRUST_FILE)?.unwrap_or_default();
            let ledger = TrustLedger::parse(&path, &text)?;
            let old_manifest = Manifest::from_snapshot(&dir, &snap)?;
            let d = trust::decay(&text, today);
            report.decayed = Some(
                ledger
                    .expired(today)
                    .into_iter()
                    .map(|c| Changed {
                        property: c.property.clone(),
                        line: c.line,
                    })
                    .collect(),
            );
            if d.text != text {
                report.written = write_trust_and_manifest(
                    ctx,
                    &dir,
                    &snap,
                    old_manifest.as_ref(),
                    &text,
                    &d.text,
                )?;
            }
            write.finish()?;
        }
        TrustAction::Verify(v) => {
            report.action = "verify";
            boundary::admit(&dir, "the property", Some(&v.property))?;
            boundary::admit(&dir, "--provenance", v.provenance.as_deref())?;
            boundary::admit(&dir, "--agent", v.agent.as_deref())?;
            // The command line lands in TRUST.md's evidence, where a newline becomes
            // `\u{a}`: judged as given, before that escaping could hide a labelled secret
            // (`password:` then the secret on the next line) from the linter (review s23 #7).
            // Each argument as given, then the whole line (a label and its value may be
            // two arguments).
            for arg in &v.command {
                boundary::admit(&dir, "the command after --", Some(arg))?;
            }
            boundary::admit(&dir, "the command after --", Some(&v.command.join(" ")))?;
            // Bad input or another session's lock stops here, before the command runs.
            HandoffWrite::precheck(repo, &dir, &claim, ctx.now)?;
            let snap = dir.snapshot(repo, Source::Worktree)?;
            let text = file_text(&dir, &snap, TRUST_FILE)?.unwrap_or_default();
            let ledger = TrustLedger::parse(&path, &text)?;
            Manifest::from_snapshot(&dir, &snap)?;
            if !v.new {
                refuse_unknown(&path, &ledger, &v.property)?;
            }
            // The command runs without holding the handoff (it may take minutes); its result
            // is then recorded into TRUST.md as it is at that moment, under the lock.
            let ran = run_check(ctx, &dir, &ledger, &v, today)?;
            let write = HandoffWrite::begin(
                repo,
                &dir,
                &claim,
                ctx.now,
                "git aahp trust verify",
                &writes,
            )?;
            let snap = dir.snapshot(repo, Source::Worktree)?;
            let text = file_text(&dir, &snap, TRUST_FILE)?.unwrap_or_default();
            let old_manifest = Manifest::from_snapshot(&dir, &snap)?;
            let (outcome, recorded) = record(&dir, &text, &v, ran)?;
            report.written = write_trust_and_manifest(
                ctx,
                &dir,
                &snap,
                old_manifest.as_ref(),
                &text,
                &recorded,
            )?;
            write.finish()?;
            report.verify = Some(outcome);
        }
    }
    Ok(report)
}

/// Refuses a property TRUST.md has no row for (issue #15: a misspelt property silently became
/// a new verified claim), naming the closest one it has.
fn refuse_unknown(path: &str, ledger: &TrustLedger, property: &str) -> Result<()> {
    let key = trust::property_key(property);
    if ledger
        .claims
        .iter()
        .any(|c| trust::property_key(&c.property) == key)
    {
        return Ok(());
    }
    let closest = ledger
        .claims
        .iter()
        .map(|c| {
            (
                edit_distance(&trust::property_key(&c.property), &key),
                &c.property,
            )
        })
        .min_by_key(|(d, _)| *d)
        .filter(|(d, _)| *d <= key.chars().count() / 3 + 2)
        .map(|(_, p)| format!("; did you mean `{}`?", escape_untrusted(p)))
        .unwrap_or_default();
    Err(Error::Declined {
        reason: format!(
            "{path} has no claim `{}`{closest} Nothing was run or written",
            escape_untrusted(property)
        ),
        hint: "check the spelling with `git aahp trust list`, or pass --new to add it as a new claim",
    })
}

/// Levenshtein distance over characters (short property names; linear memory).
fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut prev = row[0];
        row[0] = i + 1;
        for (j, cb) in b.iter().enumerate() {
            let cur = row[j + 1];
            row[j + 1] = (prev + usize::from(ca != *cb)).min(row[j] + 1).min(cur + 1);
            prev = cur;
        }
    }
    row[b.len()]
}

fn list(ledger: &TrustLedger, today: jiff::civil::Date) -> Vec<ClaimRow> {
    ledger
        .claims
        .iter()
        .map(|c| ClaimRow {
            property: c.property.clone(),
            status: c.status.clone(),
            provenance: c.provenance.clone(),
            last_verified: c.last_verified.map(|d| d.to_string()),
            ttl_days: c.ttl_days,
            expires: c.expiry().map(|d| d.to_string()),
            expired: c.is_out_of_date(today),
            decays: c.is_verified() && c.is_out_of_date(today),
            section: ledger.tables[c.table].heading.clone(),
            line: c.line,
        })
        .collect()
}

fn write_trust(dir: &HandoffDir, text: &str) -> Result<()> {
    write_atomic(&dir.abs.join(TRUST_FILE), text.as_bytes()).map_err(|source| Error::Write {
        path: dir.path_of(TRUST_FILE),
        source,
    })
}

/// Writes TRUST.md's `new` text and the manifest it calls for. The manifest is computed
/// first, so bad input anywhere in the directory (a file of invalid UTF-8) stops the
/// command with nothing written; a failed manifest write puts TRUST.md's `old` text back.
/// Returns the repository-relative paths written.
fn write_trust_and_manifest(
    ctx: &Context,
    dir: &HandoffDir,
    snap: &Snapshot,
    old_manifest: Option<&Manifest>,
    old: &str,
    new: &str,
) -> Result<Vec<String>> {
    let mut after = snap.clone();
    after.streamed.remove(TRUST_FILE);
    after
        .files
        .insert(TRUST_FILE.to_string(), new.as_bytes().to_vec());
    let manifest = planned_manifest(ctx, dir, old_manifest, &after, None)?;
    drop(after);
    write_trust(dir, new)?;
    let mut written = vec![dir.path_of(TRUST_FILE)];
    if let Some(bytes) = manifest {
        if let Err(e) = write_manifest(dir, &bytes) {
            return Err(match write_trust(dir, old) {
                Ok(()) => Error::Other {
                    context: format!(
                        "{} was put back; nothing was changed",
                        dir.path_of(TRUST_FILE)
                    ),
                    source: Some(Box::new(e)),
                },
                Err(undo) => Error::Other {
                    context: format!(
                        "{} was written but MANIFEST.json was not, and putting it back failed too ({undo}); run `git aahp manifest`",
                        dir.path_of(TRUST_FILE)
                    ),
                    source: Some(Box::new(e)),
                },
            });
        }
        written.push(dir.path_of(crate::handoff::MANIFEST));
    }
    Ok(written)
}

/// A verification command that has run, and what it proved.
struct Ran {
    verification: Verification,
    exit_code: Option<i32>,
    output_tail: Vec<String>,
}

/// What proves a claim: the command after `--`, else the check its `Check` cell names.
enum Proof<'a> {
    /// An argv: the command line's, or a configured check's (`check` names it).
    Argv {
        argv: Vec<String>,
        check: Option<&'a str>,
        cwd: std::path::PathBuf,
        limit: Option<std::time::Duration>,
    },
    /// A built-in check, run in-process.
    Builtin(Builtin),
}

/// Decides what proves `args.property`: the command given, or the check its row names
/// (looked up in the built-in checks and `trustTtl.checks`, never executed from TRUST.md).
fn proof_for<'a>(
    ctx: &Context,
    dir: &HandoffDir,
    ledger: &TrustLedger,
    policy: &'a TrustPolicy,
    args: &TrustVerifyArgs,
) -> Result<Proof<'a>> {
    if !args.command.is_empty() {
        return Ok(Proof::Argv {
            argv: args.command.clone(),
            check: None,
            cwd: ctx.cwd.clone(),
            limit: None,
        });
    }
    let claims = ledger.find(&args.property);
    let Some((claim, name)) = claims
        .iter()
        .find_map(|c| c.check.as_deref().map(|n| (c, n)))
    else {
        return Err(Error::Usage(format!(
            "a claim becomes verified only with an external anchor: give the command that proves it after `--`, e.g. `git aahp trust verify {} -- cargo test`, or name a check in its row's Check column",
            crate::output::shell_word(&args.property)
        )));
    };
    match policy.resolve(name) {
        Resolved::Builtin(b) if b.proves(&claim.property) => Ok(Proof::Builtin(b)),
        Resolved::Builtin(b) => Err(Error::invalid(
            dir.path_of(TRUST_FILE),
            Some(claim.line),
            format!(
                "the built-in check `{name}` establishes only {}, not `{}`; nothing was run or written: state the claim as the check does, or give the command that proves it after `--`",
                b.establishes(),
                claim.property
            ),
        )),
        Resolved::Configured(c) => Ok(Proof::Argv {
            argv: c.run.clone(),
            check: Some(c.id.as_str()),
            cwd: ctx.repo()?.workdir().join(dir.package_root()),
            limit: Some(crate::failpoint::check_time_limit(
                std::time::Duration::from_secs(CHECK_TIME_LIMIT_SECS),
            )),
        }),
        Resolved::Unknown => Err(Error::invalid(
            dir.path_of(TRUST_FILE),
            Some(claim.line),
            format!(
                "the check `{name}` is neither built in ({}) nor declared in trustTtl.checks of {}; nothing was run or written",
                Builtin::names(),
                dir.project_path(CONFIG_FILE)
            ),
        )),
    }
}

/// Runs what proves a claim; writes nothing.
fn run_check(
    ctx: &Context,
    dir: &HandoffDir,
    ledger: &TrustLedger,
    args: &TrustVerifyArgs,
    today: jiff::civil::Date,
) -> Result<Ran> {
    let repo = ctx.repo()?;
    let policy = match dir.project_file(repo, &Source::Worktree, CONFIG_FILE)? {
        Some(bytes) => TrustPolicy::parse(&dir.project_path(CONFIG_FILE), &bytes)?,
        None => TrustPolicy::default(),
    };
    let proof = proof_for(ctx, dir, ledger, &policy, args)?;
    let ttl_days = match &args.ttl {
        Some(t) => parse_ttl(t)
            .map_err(|m| Error::Usage(format!("--ttl: {m}")))?
            .ok_or_else(|| Error::Usage("--ttl: a verification needs a TTL".into()))?,
        None => ledger
            .find(&args.property)
            .first()
            .and_then(|c| c.ttl_days)
            .unwrap_or(DEFAULT_TTL_DAYS),
    };
    let (passed, exit_code, evidence, output_tail, default_provenance) = match proof {
        Proof::Builtin(b) => {
            let verdict = match b {
                Builtin::LicenseMatches => {
                    let read = |n| dir.project_file(repo, &Source::Worktree, n);
                    trust_checks::license_matches(
                        read("package.json")?.as_deref(),
                        read("LICENSE")?.as_deref(),
                    )
                }
                Builtin::ManifestIntegrity => {
                    let snap = dir.snapshot(repo, Source::Worktree)?;
                    match Manifest::from_snapshot(dir, &snap)? {
                        None => Err("there is no MANIFEST.json".to_string()),
                        Some(m) => {
                            let bad: Vec<_> = m
                                .check_files(dir, &snap)?
                                .into_iter()
                                .filter(|c| c.state != FileState::Ok)
                                .map(|c| c.name)
                                .collect();
                            if bad.is_empty() {
                                Ok("every checksum in MANIFEST.json holds".to_string())
                            } else {
                                Err(format!("checksums do not hold for {}", bad.join(", ")))
                            }
                        }
                    }
                }
            };
            let name = b.name();
            match verdict {
                Ok(why) => (
                    true,
                    None,
                    format!("check `{name}`: {why}"),
                    Vec::new(),
                    "tool_verified",
                ),
                Err(why) => (
                    false,
                    None,
                    format!("check `{name}` failed on {today}: {why}"),
                    Vec::new(),
                    "tool_verified",
                ),
            }
        }
        Proof::Argv {
            argv,
            check,
            cwd,
            limit,
        } => {
            // A configured check's command is written into the evidence as well: judged as
            // the command line's is, before it runs.
            if let Some(c) = check {
                let what = format!(
                    "the command of check `{c}` in {}",
                    dir.project_path(CONFIG_FILE)
                );
                for arg in &argv {
                    boundary::admit(dir, &what, Some(arg))?;
                }
                boundary::admit(dir, &what, Some(&argv.join(" ")))?;
            }
            let ran = run_bounded(&argv, &cwd, limit).map_err(|e| Error::Other {
                context: format!(
                    "could not run `{}`; {} was not changed",
                    argv[0],
                    dir.path_of(TRUST_FILE)
                ),
                source: Some(Box::new(e)),
            })?;
            let shown = shown_command(&argv);
            let status_text = match (ran.timed_out, ran.code) {
                (true, _) => format!("stopped after {} s", limit.map_or(0, |l| l.as_secs())),
                (false, Some(c)) => format!("exit {c}"),
                (false, None) => "killed by a signal".to_string(),
            };
            let passed = !ran.timed_out && ran.code == Some(0);
            let named = check.map(|c| format!("check `{c}` ")).unwrap_or_default();
            let evidence = if passed {
                format!("{named}`{shown}` {status_text}")
            } else {
                format!("{named}`{shown}` failed ({status_text}) on {today}")
            };
            let tail_lines = if passed {
                Vec::new()
            } else {
                tail(&ran.stdout, &ran.stderr)
            };
            (
                passed,
                ran.code,
                evidence,
                tail_lines,
                provenance_for(&argv),
            )
        }
    };
    let provenance = args
        .provenance
        .clone()
        .unwrap_or_else(|| default_provenance.to_string());
    let v = Verification {
        property: args.property.clone(),
        passed,
        provenance,
        date: today,
        ttl_days,
        agent: args.agent.clone(),
        evidence,
    };
    Ok(Ran {
        verification: v,
        exit_code,
        output_tail,
    })
}

/// What a command run by [`run_bounded`] did.
struct Bounded {
    code: Option<i32>,
    timed_out: bool,
    stdout: Vec<u8>,
    stderr: Vec<u8>,
}

/// How much of each output stream is kept (its end): the report shows the last lines.
const OUTPUT_KEEP: usize = 64 * 1024;

/// Runs `argv` without a shell in `cwd`, with no input, keeping only the end of its output
/// (a chatty command cannot fill memory), and stops it after `limit`.
fn run_bounded(
    argv: &[String],
    cwd: &std::path::Path,
    limit: Option<std::time::Duration>,
) -> io::Result<Bounded> {
    use std::io::Read;
    use std::time::{Duration, Instant};
    fn drain(mut r: impl Read) -> Vec<u8> {
        let mut kept = Vec::new();
        let mut buf = [0u8; 8192];
        while let Ok(n) = r.read(&mut buf) {
            if n == 0 {
                break;
            }
            kept.extend_from_slice(&buf[..n]);
            if kept.len() > 2 * OUTPUT_KEEP {
                kept.drain(..kept.len() - OUTPUT_KEEP);
            }
        }
        let cut = kept.len().saturating_sub(OUTPUT_KEEP);
        kept.split_off(cut)
    }
    let (program, rest) = argv
        .split_first()
        .ok_or_else(|| io::Error::new(io::ErrorKind::InvalidInput, "an empty command"))?;
    let mut command = Command::new(program);
    command
        .args(rest)
        .current_dir(cwd)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    // A command with a limit runs in a process group of its own, so that stopping it stops
    // what it started too (`sh -c 'sleep 1000 & sleep 1000'`), not only the direct child.
    // One without a limit (the user's own `-- CMD`) stays in the terminal's group, where
    // Ctrl-C reaches it.
    #[cfg(unix)]
    if limit.is_some() {
        std::os::unix::process::CommandExt::process_group(&mut command, 0);
    }
    let mut child = command.spawn()?;
    // Readers hand their text over a channel, so that a command whose own children keep its
    // output open (`sleep 1000 & exit 0`) cannot hold this one past its limit.
    let reader = |stream: Option<Box<dyn Read + Send>>| {
        let (tx, rx) = std::sync::mpsc::channel();
        if let Some(s) = stream {
            std::thread::spawn(move || {
                let _ = tx.send(drain(s));
            });
        }
        rx
    };
    let out = reader(
        child
            .stdout
            .take()
            .map(|o| Box::new(o) as Box<dyn Read + Send>),
    );
    let err = reader(
        child
            .stderr
            .take()
            .map(|e| Box::new(e) as Box<dyn Read + Send>),
    );
    let deadline = limit.map(|l| Instant::now() + l);
    let mut timed_out = false;
    let status = loop {
        if let Some(s) = child.try_wait()? {
            break s;
        }
        if deadline.is_some_and(|d| Instant::now() >= d) {
            timed_out = true;
            kill_group(&child);
            let _ = child.kill();
            break child.wait()?;
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    // Without a limit the output is awaited to its end, as a shell would; with one, only
    // until the limit (a stopped command's readers are not awaited at all).
    let collect = |rx: std::sync::mpsc::Receiver<Vec<u8>>| match deadline {
        _ if timed_out => Vec::new(),
        None => rx.recv().unwrap_or_default(),
        Some(d) => rx
            .recv_timeout(
                d.saturating_duration_since(Instant::now())
                    .max(Duration::from_secs(1)),
            )
            .unwrap_or_default(),
    };
    let (stdout, stderr) = (collect(out), collect(err));
    // Whatever the command left running in its group stops at its limit as well: it may
    // not outlive the check (the group outlives the reaped leader while members remain, so
    // its id still names only them).
    if deadline.is_some() {
        kill_group(&child);
    }
    Ok(Bounded {
        code: status.code(),
        timed_out,
        stdout,
        stderr,
    })
}

/// Sends SIGKILL to the process group `child` leads (see [`run_bounded`]); a group that is
/// already gone is no error.
fn kill_group(child: &std::process::Child) {
    #[cfg(unix)]
    {
        let _ = rustix::process::kill_process_group(
            rustix::process::Pid::from_child(child),
            rustix::process::Signal::KILL,
        );
    }
    #[cfg(not(unix))]
    let _ = child;
}

/// Records a verification in TRUST.md's current `text`; returns the outcome and the new
/// text (nothing is written here).
fn record(
    dir: &HandoffDir,
    text: &str,
    args: &TrustVerifyArgs,
    ran: Ran,
) -> Result<(VerifyOutcome, String)> {
    let v = ran.verification;
    let recorded = record_verification(&dir.path_of(TRUST_FILE), text, &v)?;
    let outcome = VerifyOutcome {
        property: args.property.clone(),
        command: args.command.clone(),
        exit_code: ran.exit_code,
        passed: v.passed,
        previous_status: recorded.previous_status,
        status: recorded.status,
        provenance: v.passed.then_some(v.provenance),
        expires: recorded.expires.map(|d| d.to_string()),
        evidence: v.evidence,
        added: recorded.added,
        output_tail: ran.output_tail,
    };
    Ok((outcome, recorded.text))
}

/// The command as shown in the evidence note: arguments with spaces quoted, backticks
/// replaced (they would end the code span), cut to a readable length.
fn shown_command(argv: &[String]) -> String {
    let joined = argv
        .iter()
        .map(|a| {
            let a = a.replace('`', "'");
            if a.is_empty() || a.contains(char::is_whitespace) {
                format!("'{a}'")
            } else {
                a
            }
        })
        .collect::<Vec<_>>()
        .join(" ");
    // The command line lands in TRUST.md: a token in it is redacted there too.
    crate::handoff::manifest::truncate_chars(&boundary::clean_line(&joined), EVIDENCE_COMMAND_MAX)
}

/// `test_verified` when the command runs a test suite (`cargo test`, `pytest`, `npm test`,
/// `bats`, …), else `tool_verified`.
fn provenance_for(argv: &[String]) -> &'static str {
    const RUNNERS: &[&str] = &[
        "test", "tests", "nextest", "pytest", "bats", "jest", "vitest", "mocha", "ctest", "rspec",
        "phpunit", "tox", "unittest",
    ];
    // As the program, `test` is the shell's file test (`test -f x`), not a test suite.
    let is_test = argv.iter().enumerate().any(|(i, a)| {
        let base = a.rsplit('/').next().unwrap_or(a);
        (RUNNERS.contains(&base) && !(i == 0 && base == "test"))
            || base.starts_with("test-")
            || base.ends_with("-test")
    });
    if is_test {
        "test_verified"
    } else {
        "tool_verified"
    }
}

/// The last lines of a failed command's output, for the report.
fn tail(stdout: &[u8], stderr: &[u8]) -> Vec<String> {
    const LINES: usize = 10;
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(stdout),
        String::from_utf8_lossy(stderr)
    );
    let lines: Vec<&str> = text.lines().filter(|l| !l.trim().is_empty()).collect();
    lines[lines.len().saturating_sub(LINES)..]
        .iter()
        .map(|l| (*l).to_string())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn argv(s: &str) -> Vec<String> {
        s.split(' ').map(str::to_string).collect()
    }

    #[test]
    fn a_check_whose_children_keep_its_output_open_ends_with_its_limit() {
        let start = std::time::Instant::now();
        let ran = run_bounded(
            &argv("sh -c sleep_60_&_exit_0")
                .into_iter()
                .map(|a| a.replace('_', " "))
                .collect::<Vec<_>>(),
            std::path::Path::new("."),
            Some(std::time::Duration::from_secs(2)),
        )
        .unwrap();
        assert_eq!(ran.code, Some(0));
        assert!(!ran.timed_out);
        // The background `sleep 60` holds the pipes; the run does not wait for it.
        assert!(start.elapsed() < std::time::Duration::from_secs(30));
    }

    #[test]
    fn provenance_follows_the_kind_of_command() {
        assert_eq!(provenance_for(&argv("cargo test -q")), "test_verified");
        assert_eq!(provenance_for(&argv("test -f Cargo.lock")), "tool_verified");
        assert_eq!(provenance_for(&argv("/usr/bin/pytest -x")), "test_verified");
        assert_eq!(provenance_for(&argv("cargo build")), "tool_verified");
        assert_eq!(
            provenance_for(&argv("grep -q testing README.md")),
            "tool_verified"
        );
    }

    #[test]
    fn shown_command_quotes_and_cuts() {
        assert_eq!(
            shown_command(&["sh".into(), "-c".into(), "echo `x` y".into()]),
            "sh -c 'echo 'x' y'"
        );
        assert!(
            shown_command(&[String::from("a").repeat(200)])
                .chars()
                .count()
                <= EVIDENCE_COMMAND_MAX
        );
    }
}
