//! Test-only crash injection. With the `failpoints` feature, setting `AAHP_FAILPOINT=<name>`
//! makes the process abort (no destructors, no cleanup: like SIGKILL) when it reaches the
//! point of that name, so tests can prove that every step of a transaction recovers.
//! Without the feature, [`hit`] compiles to nothing.

/// Environment variable naming the fail point to trigger.
pub const ENV: &str = "AAHP_FAILPOINT";

/// Aborts the process if `name` is the armed fail point (only with the `failpoints` feature).
#[inline]
pub fn hit(name: &str) {
    #[cfg(feature = "failpoints")]
    if std::env::var(ENV).is_ok_and(|v| v == name) {
        std::process::abort();
    }
    #[cfg(not(feature = "failpoints"))]
    let _ = name;
}
