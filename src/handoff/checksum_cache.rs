//! AAHP checksums of blobs, cached by blob id in the git directory (issue #14): a file whose
//! staged blob git already knows is not inflated and hashed again. It owns the cache file
//! only; which checksums are looked up is the pre-commit check's business.
//!
//! A blob id names its content, so no content change can reuse a stale entry. The file is
//! safe to delete: a missing, unreadable or damaged cache only costs the hashing it saved,
//! and lines that do not have the exact shape are ignored.

use std::collections::HashMap;
use std::path::PathBuf;

use gix::ObjectId;

use crate::git::Repo;

/// The cache file's name inside `<git dir>/aahp/`.
pub const FILE: &str = "checksums";
/// First line of the file; another version is ignored as a whole.
const HEADER: &str = "aahp checksum cache v1";
/// Entries kept; the oldest go first. Each is about 115 bytes.
const MAX_ENTRIES: usize = 2048;

/// The checksum cache of one repository.
#[derive(Debug)]
pub struct ChecksumCache {
    path: PathBuf,
    /// Entries in file order (oldest first), new ones appended.
    order: Vec<String>,
    sums: HashMap<String, String>,
    dirty: bool,
}

impl ChecksumCache {
    /// Opens the cache of `repo` (empty when absent or unreadable).
    pub fn open(repo: &Repo) -> ChecksumCache {
        let path = crate::transaction::journal::state_dir(repo).join(FILE);
        let mut cache = ChecksumCache {
            path,
            order: Vec::new(),
            sums: HashMap::new(),
            dirty: false,
        };
        if let Ok(text) = std::fs::read_to_string(&cache.path) {
            cache.load(&text);
        }
        cache
    }

    fn load(&mut self, text: &str) {
        let mut lines = text.lines();
        if lines.next() != Some(HEADER) {
            return;
        }
        for line in lines {
            let Some((id, sum)) = line.split_once(' ') else {
                continue;
            };
            if is_hex(id, &[40, 64])
                && sum
                    .strip_prefix("sha256:")
                    .is_some_and(|h| is_hex(h, &[64]))
                && self.sums.insert(id.to_string(), sum.to_string()).is_none()
            {
                self.order.push(id.to_string());
            }
        }
    }

    /// The checksum recorded for a blob.
    pub fn get(&self, id: ObjectId) -> Option<&str> {
        self.sums.get(&id.to_string()).map(String::as_str)
    }

    /// Records a blob's checksum.
    pub fn insert(&mut self, id: ObjectId, sum: &str) {
        let key = id.to_string();
        if self.sums.insert(key.clone(), sum.to_string()).is_none() {
            self.order.push(key);
        }
        self.dirty = true;
    }

    /// Writes the cache back when it changed (temp file and rename, so a reader never sees
    /// half a file). Failing to write only loses the cache.
    pub fn save(mut self) {
        if !self.dirty {
            return;
        }
        if self.order.len() > MAX_ENTRIES {
            let drop = self.order.len() - MAX_ENTRIES;
            for id in self.order.drain(..drop) {
                self.sums.remove(&id);
            }
        }
        let mut text = String::with_capacity(self.order.len() * 116 + HEADER.len() + 1);
        text.push_str(HEADER);
        text.push('\n');
        for id in &self.order {
            text.push_str(id);
            text.push(' ');
            text.push_str(&self.sums[id]);
            text.push('\n');
        }
        if let Some(dir) = self.path.parent() {
            let _ = std::fs::create_dir_all(dir);
        }
        let _ = super::write_atomic(&self.path, text.as_bytes());
    }
}

fn is_hex(s: &str, lens: &[usize]) -> bool {
    lens.contains(&s.len())
        && s.bytes()
            .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cache() -> ChecksumCache {
        ChecksumCache {
            path: PathBuf::new(),
            order: Vec::new(),
            sums: HashMap::new(),
            dirty: false,
        }
    }

    #[test]
    fn damaged_lines_and_other_versions_are_ignored() {
        let id = "a".repeat(40);
        let sum = format!("sha256:{}", "b".repeat(64));
        let mut c = cache();
        c.load(&format!(
            "{HEADER}\n{id} {sum}\n{} {sum}\n{} sha256:{}\n{id}\n",
            "c".repeat(39),
            "d".repeat(40),
            "e".repeat(63)
        ));
        assert_eq!(c.order, std::slice::from_ref(&id));
        assert_eq!(c.sums[&id], sum);
        let mut other = cache();
        other.load(&format!("aahp checksum cache v0\n{id} {sum}\n"));
        assert!(other.sums.is_empty());
    }

    #[test]
    fn saved_entries_read_back_and_the_oldest_go_first() {
        let dir = tempfile::tempdir().unwrap();
        let mut c = cache();
        c.path = dir.path().join("aahp").join(FILE);
        for i in 0..=MAX_ENTRIES {
            let id = ObjectId::from_hex(format!("{i:040x}").as_bytes()).unwrap();
            c.insert(id, &format!("sha256:{i:064x}"));
        }
        c.save();
        let mut back = cache();
        back.load(&std::fs::read_to_string(dir.path().join("aahp").join(FILE)).unwrap());
        assert_eq!(back.order.len(), MAX_ENTRIES);
        let first = ObjectId::from_hex(format!("{:040x}", 0).as_bytes()).unwrap();
        let last = ObjectId::from_hex(format!("{MAX_ENTRIES:040x}").as_bytes()).unwrap();
        assert_eq!(back.get(first), None);
        assert_eq!(
            back.get(last),
            Some(format!("sha256:{MAX_ENTRIES:064x}").as_str())
        );
    }
}
