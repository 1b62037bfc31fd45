//! Reusable names: the correspondent names of persistent CM transports,
//! fault tolerance group names and distributed queue names (TIBCO
//! Rendezvous Concepts, "Reusable Names"; C Reference,
//! "tibrvcmTransport_Create()", "tibrvftMember_Create()",
//! "tibrvcmTransport_CreateDistributedQueue()"; docs/rendezvous.md
//! "Reusable names").

use super::error::SubjectError;
use super::subject::{Purpose, Subject, check};

/// Which name is checked.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum NameKind {
    /// The reusable correspondent name of a CM transport (`cmName`): at most
    /// 50 bytes.
    CmName,
    /// A fault tolerance group name (`groupName`): the subject syntax, no
    /// length limit of its own.
    FtGroup,
    /// A distributed queue name, which is the `cmName` of its members'
    /// CM transports: at most 50 bytes.
    DistributedQueue,
}

/// Checks `name` as a reusable name of `kind`: the subject syntax
/// (255 bytes, elements of 1 to 127 bytes, no NUL), no wildcard element, no
/// reserved first element (no leading `_`, `_LOCAL` and `_INBOX`
/// included), and for CM and distributed queue names at most 50 bytes.
///
/// Errors: [`SubjectError`] with the rule and the element (from 1).
pub fn check_reusable_name(name: &str, kind: NameKind) -> Result<Subject<'_>, SubjectError> {
    check(name, Purpose::Name(kind))
}
