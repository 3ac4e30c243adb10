//! The only place that reads the system clock. `AAHP_NOW` (RFC 3339) pins "now" for tests and
//! reproducible runs, the way jj honours `JJ_TIMESTAMP`.

use jiff::Timestamp;

/// Environment variable that fixes the clock (a test hook, documented in the README).
pub const NOW_ENV: &str = "AAHP_NOW";

/// Returns the current time, or the instant `AAHP_NOW` names when it is set and valid.
pub fn now() -> Timestamp {
    std::env::var(NOW_ENV)
        .ok()
        .and_then(|s| s.trim().parse::<Timestamp>().ok())
        .unwrap_or_else(Timestamp::now)
}

/// Formats an instant as RFC 3339 UTC with whole seconds (`2026-11-22T03:47:19Z`), the form
/// every timestamp in the handoff files uses.
pub fn format_rfc3339(ts: Timestamp) -> String {
    ts.strftime("%Y-%m-%dT%H:%M:%SZ").to_string()
}

/// Returns the UTC calendar date of an instant.
pub fn utc_date(ts: Timestamp) -> jiff::civil::Date {
    ts.to_zoned(jiff::tz::TimeZone::UTC).date()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn format_is_rfc3339_utc_seconds() {
        let ts: Timestamp = "2026-02-26T14:30:00.75+02:00".parse().unwrap();
        assert_eq!(format_rfc3339(ts), "2026-02-26T12:30:00Z");
        assert_eq!(utc_date(ts).to_string(), "2026-02-26");
    }
}
