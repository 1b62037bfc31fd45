//! The `--journal FILE` of `mqgate send` (README "Message channels and
//! devices"): a small JSON file, rewritten atomically (temporary file, fsync,
//! rename, fsync of the directory) before every END_BATCH, after every
//! CONFIRM, after every handshake and before each run of fast-path messages,
//! so that a `send` restarted with the same arguments after it failed or was
//! killed sends only what the receiver has not committed.
//!
//! ```json
//! {"journal": "mqgate send", "version": 1, "to": "127.0.0.1:1414",
//!  "channel": "TO.MQGATE", "messages": 100, "fingerprint": "9f0c…",
//!  "last_confirmed_seq": 12, "done": [[0, 40]], "in_flight": [[13, 40, 50]]}
//! ```
//!
//! `done` holds half-open ranges of message indexes (the position of the file
//! on the command line, from 0); `in_flight` holds `[seq, start, end]` of the
//! batches whose END_BATCH may have been sent. A batch in flight whose `seq`
//! is at most the receiver's `last_committed_seq` at the next handshake was
//! committed (docs/channel-protocol.md "Resynchronisation"); the others are
//! sent again. This holds while no other sender uses the channel between the
//! runs, since the receiver counts batches per channel.

use super::progress::Ranges;
use serde::{Deserialize, Serialize};
use std::fmt;
use std::io::Write;
use std::ops::Range;
use std::path::{Path, PathBuf};

/// The `journal` value that marks the file.
const MAGIC: &str = "mqgate send";
/// The format version written and read.
const VERSION: u32 = 1;

/// What a journal says about the progress of a send.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Record {
    /// Messages done (confirmed, or given to the fast path).
    pub done: Ranges,
    /// Batches in flight: sequence number and the messages it holds.
    pub in_flight: Vec<(u64, Range<usize>)>,
    /// The highest batch sequence number seen confirmed.
    pub last_confirmed_seq: u64,
}

/// What a journal is bound to: the same receiver, channel and messages.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Identity {
    /// The receiver's address (`--to`).
    pub to: String,
    /// The channel name (`--channel`).
    pub channel: String,
    /// How many messages (files).
    pub messages: usize,
    /// [`fingerprint`] of the messages, as 16 hex digits.
    pub fingerprint: String,
}

/// Why a journal cannot be used.
#[derive(Debug)]
pub enum JournalError {
    /// The file exists but is no journal of `mqgate send` (or a newer one).
    NotAJournal { path: PathBuf, why: String },
    /// The journal was written for another send.
    Mismatch { path: PathBuf, what: String },
    /// Reading or writing the file failed.
    Io {
        path: PathBuf,
        error: std::io::Error,
    },
}

impl fmt::Display for JournalError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            JournalError::NotAJournal { path, why } => write!(
                f,
                "journal {}: not a journal of mqgate send: {why}",
                path.display()
            ),
            JournalError::Mismatch { path, what } => write!(
                f,
                "journal {} was written for another send: {what}; give the same --to, \
                 --channel and files in the same order to resume, or another --journal \
                 FILE (delete this one only if none of its messages must be kept from \
                 being sent again)",
                path.display()
            ),
            JournalError::Io { path, error } => {
                write!(f, "journal {}: {error}", path.display())
            }
        }
    }
}

/// The file as stored.
#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct Stored {
    journal: String,
    version: u32,
    to: String,
    channel: String,
    messages: usize,
    fingerprint: String,
    last_confirmed_seq: u64,
    done: Vec<[usize; 2]>,
    in_flight: Vec<[u64; 3]>,
}

/// An open journal: the file and its last written record.
pub struct Journal {
    path: PathBuf,
    identity: Identity,
    record: Record,
}

/// FNV-1a (64 bit) over each message's persistence, length and bytes, in
/// order: a different file, order, wrapping option or count changes it.
pub fn fingerprint<'a>(messages: impl IntoIterator<Item = (bool, &'a [u8])>) -> String {
    const OFFSET: u64 = 0xcbf2_9ce4_8422_2325;
    const PRIME: u64 = 0x0000_0100_0000_01b3;
    let mut h = OFFSET;
    let mut eat = |bytes: &[u8]| {
        for b in bytes {
            h ^= u64::from(*b);
            h = h.wrapping_mul(PRIME);
        }
    };
    for (persistent, data) in messages {
        eat(&[u8::from(persistent)]);
        eat(&(data.len() as u64).to_le_bytes());
        eat(data);
    }
    format!("{h:016x}")
}

impl Journal {
    /// Opens the journal at `path` for `identity`: a missing or empty file
    /// starts a new journal (written at once, so that an unwritable path fails
    /// before anything is sent); an existing one must have been written for
    /// the same identity.
    ///
    /// Errors: [`JournalError`] naming the file and what differs.
    pub fn open(path: &Path, identity: Identity) -> Result<Journal, JournalError> {
        let io = |error| JournalError::Io {
            path: path.to_path_buf(),
            error,
        };
        let text = match std::fs::read(path) {
            Ok(t) => t,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Vec::new(),
            Err(e) => return Err(io(e)),
        };
        let mut j = Journal {
            path: path.to_path_buf(),
            identity,
            record: Record::default(),
        };
        if text.iter().all(u8::is_ascii_whitespace) {
            j.save(Record::default())?;
            return Ok(j);
        }
        let not = |why: String| JournalError::NotAJournal {
            path: path.to_path_buf(),
            why,
        };
        let s: Stored = serde_json::from_slice(&text).map_err(|e| not(e.to_string()))?;
        if s.journal != MAGIC || s.version != VERSION {
            return Err(not(format!(
                "\"journal\": {:?}, \"version\": {} (expected {MAGIC:?}, {VERSION})",
                s.journal, s.version
            )));
        }
        j.record = j.check(s)?;
        Ok(j)
    }

    /// The stored record, checked against this journal's identity.
    fn check(&self, s: Stored) -> Result<Record, JournalError> {
        let id = &self.identity;
        let what = if (s.to.as_str(), s.channel.as_str()) != (&id.to, &id.channel) {
            Some(format!(
                "channel {} at {}, not channel {} at {}",
                s.channel, s.to, id.channel, id.to
            ))
        } else if (s.messages, s.fingerprint.as_str()) != (id.messages, &id.fingerprint) {
            Some(format!(
                "{} messages with fingerprint {}, not {} messages with fingerprint {} \
                 (a file was added, removed, reordered or changed, or a wrapping option differs)",
                s.messages, s.fingerprint, id.messages, id.fingerprint
            ))
        } else {
            None
        };
        if let Some(what) = what {
            return Err(JournalError::Mismatch {
                path: self.path.clone(),
                what,
            });
        }
        let bad = |why: String| JournalError::NotAJournal {
            path: self.path.clone(),
            why,
        };
        let range = |start: usize, end: usize| {
            if start < end && end <= s.messages {
                Ok(start..end)
            } else {
                Err(bad(format!(
                    "range [{start}, {end}] is not within the {} messages",
                    s.messages
                )))
            }
        };
        let mut done = Ranges::default();
        for [a, b] in &s.done {
            done.insert(range(*a, *b)?);
        }
        let mut in_flight = Vec::with_capacity(s.in_flight.len());
        for [seq, a, b] in &s.in_flight {
            let (Ok(a), Ok(b)) = (usize::try_from(*a), usize::try_from(*b)) else {
                return Err(bad(format!("in_flight [{seq}, {a}, {b}] is out of range")));
            };
            in_flight.push((*seq, range(a, b)?));
        }
        Ok(Record {
            done,
            in_flight,
            last_confirmed_seq: s.last_confirmed_seq,
        })
    }

    /// The file's path.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The record last written (or read).
    pub fn record(&self) -> &Record {
        &self.record
    }

    /// Writes `record` durably: a temporary file next to the journal, fsync,
    /// rename over the journal, fsync of the directory. A crash leaves the
    /// old record or the new one, never a mix.
    pub fn save(&mut self, record: Record) -> Result<(), JournalError> {
        let stored = Stored {
            journal: MAGIC.to_string(),
            version: VERSION,
            to: self.identity.to.clone(),
            channel: self.identity.channel.clone(),
            messages: self.identity.messages,
            fingerprint: self.identity.fingerprint.clone(),
            last_confirmed_seq: record.last_confirmed_seq,
            done: record
                .done
                .ranges()
                .iter()
                .map(|r| [r.start, r.end])
                .collect(),
            in_flight: record
                .in_flight
                .iter()
                .map(|(s, r)| [*s, r.start as u64, r.end as u64])
                .collect(),
        };
        let mut text = serde_json::to_vec(&stored).map_err(|e| JournalError::Io {
            path: self.path.clone(),
            error: std::io::Error::other(e),
        })?;
        text.push(b'\n');
        write_atomically(&self.path, &text).map_err(|error| JournalError::Io {
            path: self.path.clone(),
            error,
        })?;
        self.record = record;
        Ok(())
    }
}

fn write_atomically(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    let mut tmp = path.as_os_str().to_owned();
    tmp.push(".tmp");
    let tmp = PathBuf::from(tmp);
    let mut f = std::fs::File::create(&tmp)?;
    f.write_all(bytes)?;
    f.sync_all()?;
    drop(f);
    std::fs::rename(&tmp, path)?;
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    };
    std::fs::File::open(dir)?.sync_all()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn identity(messages: usize, fp: &str) -> Identity {
        Identity {
            to: "127.0.0.1:1414".into(),
            channel: "TO.MQGATE".into(),
            messages,
            fingerprint: fp.into(),
        }
    }

    #[test]
    fn fingerprint_is_fnv1a_and_sees_order_and_persistence() {
        // FNV-1a 64 of no input is its offset basis (the FNV specification,
        // draft-eastlake-fnv): cbf29ce484222325.
        assert_eq!(fingerprint([]), "cbf29ce484222325");
        let a = fingerprint([(true, &b"a"[..]), (true, &b"b"[..])]);
        assert_ne!(a, fingerprint([(true, &b"b"[..]), (true, &b"a"[..])]));
        assert_ne!(a, fingerprint([(false, &b"a"[..]), (true, &b"b"[..])]));
        assert_ne!(a, fingerprint([(true, &b"ab"[..])]));
    }

    #[test]
    fn a_record_survives_reopening_and_another_send_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("j.json");
        let mut j = Journal::open(&path, identity(10, "00000000000000aa")).unwrap();
        let rec = Record {
            done: Ranges::from_ranges([0..4, 6..7]),
            in_flight: vec![(9, 4..6)],
            last_confirmed_seq: 8,
        };
        j.save(rec.clone()).unwrap();
        let again = Journal::open(&path, identity(10, "00000000000000aa")).unwrap();
        assert_eq!(again.record(), &rec);
        let e = Journal::open(&path, identity(10, "00000000000000bb"))
            .err()
            .unwrap();
        assert!(
            matches!(e, JournalError::Mismatch { .. }) && e.to_string().contains("fingerprint"),
            "{e}"
        );
        let mut other = identity(10, "00000000000000aa");
        other.channel = "OTHER".into();
        let e = Journal::open(&path, other).err().unwrap();
        assert!(e.to_string().contains("channel TO.MQGATE"), "{e}");
        // No temporary file is left behind.
        assert!(!dir.path().join("j.json.tmp").exists());
    }

    #[test]
    fn empty_new_and_foreign_files() {
        let dir = tempfile::tempdir().unwrap();
        // An empty file (e.g. from mktemp) is a new journal.
        let empty = dir.path().join("empty");
        std::fs::write(&empty, b"").unwrap();
        let j = Journal::open(&empty, identity(3, "00000000000000aa")).unwrap();
        assert_eq!(j.record(), &Record::default());
        assert!(
            std::fs::read_to_string(&empty)
                .unwrap()
                .contains("\"mqgate send\"")
        );
        let foreign = dir.path().join("foreign");
        for text in [
            "not json",
            r#"{"journal":"other","version":1}"#,
            r#"{"journal":"mqgate send","version":1,"to":"127.0.0.1:1414","channel":"TO.MQGATE","messages":3,"fingerprint":"00000000000000aa","last_confirmed_seq":0,"done":[[2,9]],"in_flight":[]}"#,
        ] {
            std::fs::write(&foreign, text).unwrap();
            let e = Journal::open(&foreign, identity(3, "00000000000000aa"))
                .err()
                .unwrap();
            assert!(matches!(e, JournalError::NotAJournal { .. }), "{text}: {e}");
        }
    }
}
