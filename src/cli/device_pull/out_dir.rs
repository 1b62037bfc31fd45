//! `mqgate device-pull --out DIR`: each message becomes `NNNNNN.dat` (the
//! data) and `NNNNNN.json` (its MQMD), numbered after the highest number
//! already in DIR, written durably and never over an existing file, so that
//! the caller acknowledges a message only once both files are safe.
//!
//! Each file is written to a temporary file in DIR and fsynced, then
//! hard-linked to its name — link(2) fails when the name exists, so two runs
//! into the same DIR never overwrite each other — and the directory is
//! fsynced. The `.json` is linked last: a `.dat` without its `.json` is a
//! message interrupted before its acknowledge, which the gateway gives out
//! again (under the next number).

use std::fs::File;
use std::io::{ErrorKind, Write};
use std::path::{Path, PathBuf};

/// A directory messages are written into.
pub struct OutDir {
    dir: PathBuf,
    /// The number the next message tries first.
    next: u64,
}

/// The number of a `NNNNNN.dat` or `NNNNNN.json` name (any count of digits).
fn number_of(name: &str) -> Option<u64> {
    let stem = name
        .strip_suffix(".dat")
        .or_else(|| name.strip_suffix(".json"))?;
    if stem.is_empty() || !stem.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    stem.parse().ok()
}

fn sync_dir(dir: &Path) -> std::io::Result<()> {
    File::open(dir)?.sync_all()
}

/// Writes `bytes` to a new temporary file `name` in `dir` and fsyncs it.
fn write_temp(dir: &Path, name: &str, bytes: &[u8]) -> std::io::Result<PathBuf> {
    let path = dir.join(name);
    let mut f = File::create(&path)?;
    f.write_all(bytes)?;
    f.sync_all()?;
    Ok(path)
}

impl OutDir {
    /// Creates `dir` when missing and finds the highest message number in it.
    ///
    /// Errors: the directory cannot be created or read.
    pub fn open(dir: &Path) -> std::io::Result<OutDir> {
        if !dir.is_dir() {
            std::fs::create_dir_all(dir)?;
            if let Some(parent) = dir.parent().filter(|p| !p.as_os_str().is_empty()) {
                sync_dir(parent)?;
            }
        }
        let mut highest = 0;
        for entry in std::fs::read_dir(dir)? {
            let entry = entry?;
            if let Some(n) = entry.file_name().to_str().and_then(number_of) {
                highest = highest.max(n);
            }
        }
        Ok(OutDir {
            dir: dir.to_path_buf(),
            next: highest + 1,
        })
    }

    /// Writes one message; returns its number once both files and the
    /// directory entry are on disk.
    ///
    /// Errors: any write, fsync or link failure (nothing is left under a
    /// message name then, except a `.dat` whose `.json` failed).
    pub fn write(&mut self, data: &[u8], md_json: &[u8]) -> std::io::Result<u64> {
        let pid = std::process::id();
        let dat = write_temp(&self.dir, &format!(".device-pull-{pid}.dat.tmp"), data)?;
        let json = write_temp(&self.dir, &format!(".device-pull-{pid}.json.tmp"), md_json);
        let result = json.and_then(|json| {
            let r = self.link_pair(&dat, &json);
            let _ = std::fs::remove_file(&json);
            r
        });
        let _ = std::fs::remove_file(&dat);
        let n = result?;
        sync_dir(&self.dir)?;
        self.next = n + 1;
        Ok(n)
    }

    /// Links the two temporary files to the first free number from `next`.
    fn link_pair(&self, dat: &Path, json: &Path) -> std::io::Result<u64> {
        let mut n = self.next;
        loop {
            let to_dat = self.dir.join(format!("{n:06}.dat"));
            match std::fs::hard_link(dat, &to_dat) {
                Ok(()) => {}
                // Taken (by another run into the same DIR): the next number.
                Err(e) if e.kind() == ErrorKind::AlreadyExists => {
                    n += 1;
                    continue;
                }
                Err(e) => return Err(e),
            }
            match std::fs::hard_link(json, self.dir.join(format!("{n:06}.json"))) {
                Ok(()) => return Ok(n),
                Err(e) => {
                    let _ = std::fs::remove_file(&to_dat);
                    if e.kind() != ErrorKind::AlreadyExists {
                        return Err(e);
                    }
                    n += 1;
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbering_continues_after_the_highest_file_and_never_overwrites() {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        std::fs::write(d.join("000002.dat"), b"old 2").unwrap();
        std::fs::write(d.join("000007.json"), b"{}").unwrap();
        std::fs::write(d.join("notes.txt"), b"other").unwrap();
        std::fs::write(d.join("12a.dat"), b"not a number").unwrap();
        let mut out = OutDir::open(d).unwrap();
        assert_eq!(out.write(b"new", b"{\"n\":8}").unwrap(), 8);
        // A name taken meanwhile (another run) is skipped, not overwritten.
        std::fs::write(d.join("000009.dat"), b"taken").unwrap();
        assert_eq!(out.write(b"newer", b"{}").unwrap(), 10);
        assert_eq!(std::fs::read(d.join("000002.dat")).unwrap(), b"old 2");
        assert_eq!(std::fs::read(d.join("000008.dat")).unwrap(), b"new");
        assert_eq!(std::fs::read(d.join("000008.json")).unwrap(), b"{\"n\":8}");
        assert_eq!(std::fs::read(d.join("000009.dat")).unwrap(), b"taken");
        assert!(!d.join("000009.json").exists());
        assert_eq!(std::fs::read(d.join("000010.dat")).unwrap(), b"newer");
        // No temporary file is left.
        let left: Vec<String> = std::fs::read_dir(d)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .filter(|n| n.ends_with(".tmp"))
            .collect();
        assert!(left.is_empty(), "{left:?}");
    }

    #[test]
    fn names_that_count() {
        assert_eq!(number_of("000001.dat"), Some(1));
        assert_eq!(number_of("1234567.json"), Some(1_234_567));
        assert_eq!(number_of(".dat"), None);
        assert_eq!(number_of("x1.dat"), None);
        assert_eq!(number_of("000001.dat.tmp"), None);
    }
}
