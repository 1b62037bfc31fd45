//! The store's error: what failed, sorted by what the queue manager can do
//! about it, with the MQRC reason it answers.

use mqgate_codecs::mq::Mqrc;
use std::fmt;
use std::io;

/// A store failure. Every variant names the operation that failed (`op`,
/// e.g. `/data/messages.redb: commit`).
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    /// No space left on the store's device (ENOSPC) or the disk quota is
    /// exhausted (EDQUOT): MQRC 2056 MQRC_Q_SPACE_NOT_AVAILABLE.
    #[error("store: {op}: no space left for the store ({source})")]
    Full {
        /// What was being done.
        op: String,
        /// The operating system's error.
        source: io::Error,
    },
    /// Any other I/O error of the device or file.
    #[error("store: {op}: I/O error: {source}")]
    Io {
        /// What was being done.
        op: String,
        /// The operating system's error.
        source: io::Error,
    },
    /// A stored record (or the engine's own structure) cannot be read back.
    #[error("store: {op}: {}: {detail}", CorruptSubject(*key))]
    Corrupt {
        /// What was being done.
        op: String,
        /// The key of the damaged record; `None` when the engine cannot say
        /// which record is damaged.
        key: Option<u64>,
        /// What is wrong with it.
        detail: String,
    },
    /// An earlier failure left this instance unusable: it refuses every call
    /// until the store is closed and opened again.
    #[error("store: {op}: the store must be closed and reopened: {detail}")]
    Closed {
        /// What was being done.
        op: String,
        /// What closed it.
        detail: String,
    },
    /// Another gateway on a shared store changed what the batch expected
    /// (a claim it held, a named state record it read): nothing was
    /// applied; reading again shows the other gateway's change.
    #[error("store: {op}: another gateway changed it first: {detail}")]
    Conflict {
        /// What was being done.
        op: String,
        /// What was changed.
        detail: String,
    },
    /// The engine refused for another reason (the file is locked by another
    /// process, a value is too large, the file has another layout, ...).
    #[error("store: {op}: {detail}")]
    Refused {
        /// What was being done.
        op: String,
        /// The engine's reason.
        detail: String,
    },
}

/// Displays "record K is corrupt" or, without a key, "the store is corrupt".
struct CorruptSubject(Option<u64>);

impl fmt::Display for CorruptSubject {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.0 {
            Some(key) => write!(f, "record {key} is corrupt"),
            None => f.write_str("the store is corrupt"),
        }
    }
}

impl StoreError {
    /// An I/O error of `op`: [`StoreError::Full`] when it says the device or
    /// quota is full (ENOSPC / EDQUOT, `ErrorKind::StorageFull` /
    /// `QuotaExceeded`), [`StoreError::Io`] otherwise.
    pub fn from_io(op: impl Into<String>, source: io::Error) -> StoreError {
        let op = op.into();
        let full = matches!(
            source.kind(),
            io::ErrorKind::StorageFull | io::ErrorKind::QuotaExceeded
        ) || matches!(source.raw_os_error(), Some(libc::ENOSPC | libc::EDQUOT));
        if full {
            StoreError::Full { op, source }
        } else {
            StoreError::Io { op, source }
        }
    }

    /// The reason the queue manager answers when a call fails because of
    /// this error (MQ docs, "Reason codes"): 2056 MQRC_Q_SPACE_NOT_AVAILABLE
    /// for a full disk, 2102 MQRC_RESOURCE_PROBLEM for everything else.
    pub fn mqrc(&self) -> Mqrc {
        match self {
            StoreError::Full { .. } => Mqrc::Q_SPACE_NOT_AVAILABLE,
            _ => Mqrc::RESOURCE_PROBLEM,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn enospc_and_edquot_are_full_and_answer_2056() {
        // IBM MQ "2056 (0808) (RC2056): MQRC_Q_SPACE_NOT_AVAILABLE"; ENOSPC 28
        // and EDQUOT 122: Linux errno(3).
        for raw in [libc::ENOSPC, libc::EDQUOT] {
            let e = StoreError::from_io("commit", io::Error::from_raw_os_error(raw));
            assert!(matches!(e, StoreError::Full { .. }), "{e:?}");
            assert_eq!(e.mqrc().0, 2056);
        }
        let kind = StoreError::from_io("write", io::Error::from(io::ErrorKind::StorageFull));
        assert_eq!(kind.mqrc(), Mqrc::Q_SPACE_NOT_AVAILABLE);
        let e = StoreError::from_io("/d/messages.redb: commit", io::Error::from_raw_os_error(28));
        assert_eq!(
            e.to_string(),
            "store: /d/messages.redb: commit: no space left for the store (No space left on device (os error 28))"
        );
    }

    #[test]
    fn other_failures_answer_2102_and_name_what_failed() {
        // 2102 MQRC_RESOURCE_PROBLEM: IBM MQ documentation, "2102
        // (0836) (RC2102): MQRC_RESOURCE_PROBLEM"; EIO 5: Linux errno(3).
        let io = StoreError::from_io("fsync", io::Error::from_raw_os_error(libc::EIO));
        assert!(matches!(io, StoreError::Io { .. }));
        assert_eq!(io.mqrc().0, 2102);
        assert_eq!(
            io.to_string(),
            "store: fsync: I/O error: Input/output error (os error 5)"
        );
        let corrupt = StoreError::Corrupt {
            op: "load".into(),
            key: Some(9),
            detail: "segment entry at byte 0: too short".into(),
        };
        assert_eq!(corrupt.mqrc().0, 2102);
        assert_eq!(
            corrupt.to_string(),
            "store: load: record 9 is corrupt: segment entry at byte 0: too short"
        );
        let unknown = StoreError::Corrupt {
            op: "load".into(),
            key: None,
            detail: "bad page checksum".into(),
        };
        assert_eq!(
            unknown.to_string(),
            "store: load: the store is corrupt: bad page checksum"
        );
        let closed = StoreError::Closed {
            op: "begin".into(),
            detail: "an earlier I/O error".into(),
        };
        assert_eq!(closed.mqrc().0, 2102);
        assert_eq!(
            closed.to_string(),
            "store: begin: the store must be closed and reopened: an earlier I/O error"
        );
        let refused = StoreError::Refused {
            op: "open".into(),
            detail: "locked".into(),
        };
        assert_eq!(
            (refused.mqrc().0, refused.to_string()),
            (2102, "store: open: locked".to_string())
        );
    }
}
