//! Reading Linux's `/proc` files, for what the platform tells no other way without `unsafe`
//! (the CPU a thread runs on, a process's parent).

/// Field `n` (counted from 1, as `proc(5)` numbers them; `n` ≥ 3) of a `/proc/…/stat` line,
/// as a number. The second field, the name in parentheses, may hold spaces and parentheses
/// itself: the fields after it are counted from its last `)`. `None` for a short or garbled
/// line.
#[cfg_attr(not(target_os = "linux"), allow(dead_code))]
pub(crate) fn stat_field(stat: &[u8], n: usize) -> Option<u64> {
    let after_name = &stat[stat.iter().rposition(|&b| b == b')')? + 1..];
    let field = after_name
        .split(u8::is_ascii_whitespace)
        .filter(|f| !f.is_empty())
        .nth(n.checked_sub(3)?)?;
    std::str::from_utf8(field).ok()?.parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Fields are found after a name holding spaces and parentheses, and a short or garbled
    /// line gives no number rather than a wrong one.
    #[test]
    fn fields_are_counted_after_the_name() {
        let tail = (3..=52)
            .map(|f| f.to_string())
            .collect::<Vec<_>>()
            .join(" ");
        let line = format!("4242 (odd) name ) (x) {tail}\n");
        assert_eq!(stat_field(line.as_bytes(), 39), Some(39));
        assert_eq!(stat_field(line.as_bytes(), 4), Some(4));
        assert_eq!(stat_field(b"77 (a (b) c) S 41 77 77 0", 4), Some(41));
        assert_eq!(stat_field(b"4242 (short) S 1 2 3\n", 39), None);
        assert_eq!(stat_field(b"no name at all", 4), None);
        assert_eq!(stat_field(b"1 (x) S 0", 2), None);
        let garbled = line.replace(" 39 ", " -1 ");
        assert_eq!(stat_field(garbled.as_bytes(), 39), None);
    }
}
