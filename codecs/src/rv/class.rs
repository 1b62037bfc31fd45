//! Reserved (distinguished) subject names: a first element that begins with
//! `_` (TIBCO Rendezvous Concepts, "Distinguished Subject Names with Special
//! Meaning"; the prefixes of certified delivery, fault tolerance, distributed
//! queues and routing daemons from the same documentation's chapters on
//! those features; docs/rendezvous.md "Reserved prefixes").

use std::fmt;

/// What a subject's first element makes of it.
///
/// Only the whole first element counts: `_RVCM.X` is [`Certified`],
/// `_RVCMQ.X` is [`DistributedQueue`], `_RVCMX.X` is [`Reserved`] and
/// `RV.X` is [`Ordinary`]. A wildcard first element (`*.X`, `>`) is
/// [`Ordinary`]: which reserved subjects such a pattern also matches is a
/// question for whoever delivers messages, not for the name.
///
/// [`Certified`]: SubjectClass::Certified
/// [`DistributedQueue`]: SubjectClass::DistributedQueue
/// [`Reserved`]: SubjectClass::Reserved
/// [`Ordinary`]: SubjectClass::Ordinary
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum SubjectClass {
    /// No leading `_`: an application subject.
    Ordinary,
    /// `_INBOX`: point-to-point inboxes, made only by the inbox calls; never
    /// combined with wildcards.
    Inbox,
    /// `_LOCAL`: delivered only to transports of the same daemon.
    Local,
    /// `_RV`: advisories (`_RV.<class>.<source>.<category>...`); programs must
    /// not send to them.
    Advisory,
    /// `_RVCM`: certified delivery protocol messages.
    Certified,
    /// `_RVFT`: fault tolerance protocol messages.
    FaultTolerance,
    /// `_RVCMQ`: distributed queue protocol messages.
    DistributedQueue,
    /// `_RVRD`: routing daemon messages.
    RoutingDaemon,
    /// Any other first element beginning with `_`: internal administrative
    /// messages.
    Reserved,
}

impl SubjectClass {
    /// The class of a subject whose first element is `first` (the element's
    /// text, without the dot).
    pub fn of_first_element(first: &str) -> SubjectClass {
        match first {
            "_INBOX" => SubjectClass::Inbox,
            "_LOCAL" => SubjectClass::Local,
            "_RV" => SubjectClass::Advisory,
            "_RVCM" => SubjectClass::Certified,
            "_RVFT" => SubjectClass::FaultTolerance,
            "_RVCMQ" => SubjectClass::DistributedQueue,
            "_RVRD" => SubjectClass::RoutingDaemon,
            s if s.starts_with('_') => SubjectClass::Reserved,
            _ => SubjectClass::Ordinary,
        }
    }

    /// True for every class but [`SubjectClass::Ordinary`].
    pub fn is_reserved(self) -> bool {
        self != SubjectClass::Ordinary
    }

    /// True when a program may send to subjects of this class: ordinary
    /// subjects, `_LOCAL.` and `_INBOX.`. Inboxes are what a reply is sent to;
    /// the name alone cannot tell who created one, so every `_INBOX.`
    /// subject may be sent to (docs/rendezvous.md "Modes").
    pub fn may_send(self) -> bool {
        matches!(
            self,
            SubjectClass::Ordinary | SubjectClass::Inbox | SubjectClass::Local
        )
    }

    /// The prefix as the documentation writes it (`_RV.`); `None` for
    /// [`SubjectClass::Ordinary`] and [`SubjectClass::Reserved`], which have
    /// no single prefix.
    pub fn prefix(self) -> Option<&'static str> {
        match self {
            SubjectClass::Ordinary | SubjectClass::Reserved => None,
            SubjectClass::Inbox => Some("_INBOX."),
            SubjectClass::Local => Some("_LOCAL."),
            SubjectClass::Advisory => Some("_RV."),
            SubjectClass::Certified => Some("_RVCM."),
            SubjectClass::FaultTolerance => Some("_RVFT."),
            SubjectClass::DistributedQueue => Some("_RVCMQ."),
            SubjectClass::RoutingDaemon => Some("_RVRD."),
        }
    }

    /// What subjects of this class are for, completing "reserved for ...".
    pub fn meaning(self) -> &'static str {
        match self {
            SubjectClass::Ordinary => "applications",
            SubjectClass::Inbox => "point-to-point inboxes",
            SubjectClass::Local => "messages that stay in the daemon",
            SubjectClass::Advisory => "advisories",
            SubjectClass::Certified => "certified delivery",
            SubjectClass::FaultTolerance => "fault tolerance",
            SubjectClass::DistributedQueue => "distributed queues",
            SubjectClass::RoutingDaemon => "routing daemons",
            SubjectClass::Reserved => "internal administrative messages",
        }
    }

    /// A one-word name for listings: `ordinary`, `inbox`, `local`,
    /// `advisory`, `certified`, `fault-tolerance`, `distributed-queue`,
    /// `routing-daemon`, `reserved`.
    pub fn name(self) -> &'static str {
        match self {
            SubjectClass::Ordinary => "ordinary",
            SubjectClass::Inbox => "inbox",
            SubjectClass::Local => "local",
            SubjectClass::Advisory => "advisory",
            SubjectClass::Certified => "certified",
            SubjectClass::FaultTolerance => "fault-tolerance",
            SubjectClass::DistributedQueue => "distributed-queue",
            SubjectClass::RoutingDaemon => "routing-daemon",
            SubjectClass::Reserved => "reserved",
        }
    }
}

impl fmt::Display for SubjectClass {
    /// [`SubjectClass::name`].
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

#[cfg(test)]
mod tests {
    use super::SubjectClass::{self, *};

    #[test]
    fn first_elements() {
        // "Distinguished Subject Names with Special Meaning": _INBOX., _LOCAL.,
        // _RV., and every other name beginning with '_'; the CM, FT, DQ and
        // routing daemon prefixes as the feature chapters name them.
        for (first, class) in [
            ("_INBOX", Inbox),
            ("_LOCAL", Local),
            ("_RV", Advisory),
            ("_RVCM", Certified),
            ("_RVFT", FaultTolerance),
            ("_RVCMQ", DistributedQueue),
            ("_RVRD", RoutingDaemon),
            ("_RVCMX", Reserved),
            ("_", Reserved),
            ("_inbox", Reserved), // case-sensitive, like every subject
            ("RV", Ordinary),
            ("INBOX_", Ordinary),
            ("*", Ordinary),
            (">", Ordinary),
        ] {
            assert_eq!(SubjectClass::of_first_element(first), class, "{first}");
        }
    }

    #[test]
    fn only_ordinary_local_and_inbox_may_be_sent_to() {
        // "Programs must not send to subjects with this prefix" (_RV. and
        // every other '_' name); _LOCAL. is sent to by design; inboxes are
        // reply subjects.
        let all = [
            Ordinary,
            Inbox,
            Local,
            Advisory,
            Certified,
            FaultTolerance,
            DistributedQueue,
            RoutingDaemon,
            Reserved,
        ];
        let sendable: Vec<_> = all.into_iter().filter(|c| c.may_send()).collect();
        assert_eq!(sendable, [Ordinary, Inbox, Local]);
        assert_eq!(Advisory.prefix(), Some("_RV."));
        assert_eq!(Reserved.prefix(), None);
    }
}
