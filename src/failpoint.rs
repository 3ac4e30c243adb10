//! Test-only crash and error injection. With the `failpoints` feature, setting
//! `AAHP_FAILPOINT=<name>[,<name>…]` makes the process abort (no destructors, no cleanup:
//! like SIGKILL) when it reaches a [`hit`] point of one of those names, or makes an [`error`]
//! point of one of those names fail with an I/O error, so tests can prove that every step of
//! a transaction recovers. Without the feature, both compile to nothing.

/// Environment variable naming the fail points to trigger.
pub const ENV: &str = "AAHP_FAILPOINT";

#[cfg(feature = "failpoints")]
fn armed(name: &str) -> bool {
    std::env::var(ENV).is_ok_and(|v| v.split(',').any(|p| p == name))
}

/// Aborts the process if `name` is an armed fail point (only with the `failpoints` feature).
#[inline]
pub fn hit(name: &str) {
    #[cfg(feature = "failpoints")]
    if armed(name) {
        std::process::abort();
    }
    #[cfg(not(feature = "failpoints"))]
    let _ = name;
}

/// Returns an I/O error if `name` is an armed fail point (only with the `failpoints`
/// feature): a full disk or a refused write at that step, without needing either.
#[inline]
pub fn error(name: &str) -> std::io::Result<()> {
    #[cfg(feature = "failpoints")]
    if armed(name) {
        return Err(std::io::Error::other(format!("injected failure at {name}")));
    }
    #[cfg(not(feature = "failpoints"))]
    let _ = name;
    Ok(())
}

/// True if `name` is armed (only with the `failpoints` feature): a test asks for a path
/// the command takes only on inputs too large for a test (the lint of LOG-ARCHIVE.md in
/// pieces, above 1 MiB).
#[inline]
pub fn armed_flag(name: &str) -> bool {
    #[cfg(feature = "failpoints")]
    return armed(name);
    #[cfg(not(feature = "failpoints"))]
    {
        let _ = name;
        false
    }
}

/// Sleeps a little if `name` is armed (only with the `failpoints` feature): widens a
/// window (the writes of a rotation) so that a test's randomly timed SIGKILL lands in it
/// often enough to prove something.
#[inline]
pub fn pause(name: &str) {
    #[cfg(feature = "failpoints")]
    if armed(name) {
        std::thread::sleep(std::time::Duration::from_millis(PAUSE_MS));
    }
    #[cfg(not(feature = "failpoints"))]
    let _ = name;
}

/// Environment variable naming the directory where [`rendezvous`] points meet a test.
pub const DIR_ENV: &str = "AAHP_FAILPOINT_DIR";

/// Stops at `name` until the test lets it go, if `name` is armed and [`DIR_ENV`] names a
/// directory (only with the `failpoints` feature): creates `<dir>/<name>.reached`, then
/// waits for `<dir>/<name>.go`. A test does what another process would do at that moment
/// (another clone moving a counter) and then creates the file, with no timing involved. The
/// wait gives up after a minute, so a broken test fails rather than hangs.
#[inline]
pub fn rendezvous(name: &str) {
    #[cfg(feature = "failpoints")]
    if armed(name)
        && let Some(dir) = std::env::var_os(DIR_ENV)
    {
        let dir = std::path::Path::new(&dir);
        let _ = std::fs::write(dir.join(format!("{name}.reached")), b"");
        let go = dir.join(format!("{name}.go"));
        let start = std::time::Instant::now();
        while !go.exists() && start.elapsed().as_secs() < RENDEZVOUS_LIMIT_S {
            std::thread::sleep(std::time::Duration::from_millis(10));
        }
    }
    #[cfg(not(feature = "failpoints"))]
    let _ = name;
}

/// How long [`rendezvous`] waits for the test at most.
#[cfg(feature = "failpoints")]
const RENDEZVOUS_LIMIT_S: u64 = 60;

/// How long [`pause`] sleeps.
#[cfg(feature = "failpoints")]
const PAUSE_MS: u64 = 15;

/// Environment variable that shortens a configured trust check's time limit to that many
/// milliseconds (only with the `failpoints` feature), so a test can show what happens at
/// the limit without waiting for it.
pub const CHECK_LIMIT_ENV: &str = "AAHP_CHECK_LIMIT_MS";

/// The time limit of a configured trust check: `default`, or [`CHECK_LIMIT_ENV`]'s value
/// when the `failpoints` feature is on and it is set.
pub fn check_time_limit(default: std::time::Duration) -> std::time::Duration {
    #[cfg(feature = "failpoints")]
    if let Some(ms) = std::env::var(CHECK_LIMIT_ENV)
        .ok()
        .and_then(|v| v.parse::<u64>().ok())
    {
        return std::time::Duration::from_millis(ms);
    }
    default
}
