//! Device queue managers: queue manager names matching a pattern of
//! `devices.queue_managers` are devices behind this gateway, whose queues wait here until
//! the device pulls them (the IBM developerWorks article "Configuring WebSphere MQ for
//! large-scale deployment of WebSphere MQ Everyplace devices"; docs/config.md `devices`).
//! Queue `QUEUE` of device `QMGR` is the local queue `QMGR/QUEUE`, created by the first message for it;
//! no device is defined one by one.

use super::view::Objects;
use super::{Destination, NewQueue, Origin};
use crate::config::{DevicesConfig, LocalQueueDef, Usage};
use crate::qmgr::QmError;
use crate::qmgr::names::{check_object_name, check_q_mgr_name, matches_pattern, shown};
use mqgate_codecs::mq::Mqrc;
use mqgate_codecs::mq::constants::len;

/// The separator between the device queue manager and the queue in a device
/// queue's local name. `/` is an MQ name character (IBM MQ "Rules for naming
/// IBM MQ objects"), so the local name is itself a valid queue name when it
/// fits.
const SEPARATOR: char = '/';

/// The device queue managers of one queue manager.
#[derive(Clone, Debug)]
pub struct DeviceQueueManagers {
    local_q_mgr: String,
    patterns: Vec<String>,
    max_depth: usize,
}

impl DeviceQueueManagers {
    /// The devices of queue manager `local_q_mgr`: names matching
    /// `config.queue_managers` (`*` matching any tail), queues of MAXDEPTH
    /// `config.max_depth`.
    pub fn new(local_q_mgr: &str, config: &DevicesConfig) -> Self {
        DeviceQueueManagers {
            local_q_mgr: local_q_mgr.to_string(),
            patterns: config.queue_managers.clone(),
            max_depth: config.max_depth,
        }
    }

    /// True when `q_mgr` is a device queue manager: it matches a pattern and
    /// is not this queue manager.
    ///
    /// A device's queues are named `QMGR/QUEUE` and split at the first `/`: a
    /// device queue manager name with a `/` would let one device reach
    /// another's queues (`DEV1/A` + `B` and `DEV1` + `A/B` are both
    /// `DEV1/A/B`), so such a name is never a device.
    pub fn is_device(&self, q_mgr: &str) -> bool {
        q_mgr != self.local_q_mgr
            && !q_mgr.contains(SEPARATOR)
            && self.patterns.iter().any(|p| matches_pattern(p, q_mgr))
    }

    /// Checks a device queue manager name given to the device API: 2058
    /// MQRC_Q_MGR_NAME_ERROR when it is empty or not a valid queue manager name
    /// (IBM MQ "Rules for naming IBM MQ objects").
    pub fn check_name(q_mgr: &str) -> Result<(), QmError> {
        if q_mgr.is_empty() {
            return Err(QmError::new(
                Mqrc::Q_MGR_NAME_ERROR,
                "the device queue manager name is empty",
            ));
        }
        check_q_mgr_name(q_mgr)
    }

    /// 2087 MQRC_UNKNOWN_REMOTE_Q_MGR for `q_mgr`, which is not a device
    /// queue manager ([`DeviceQueueManagers::is_device`] is false).
    pub fn not_a_device(q_mgr: &str) -> QmError {
        QmError::new(
            Mqrc::UNKNOWN_REMOTE_Q_MGR,
            format!("{q_mgr} is not a device queue manager (devices.queue_managers)"),
        )
    }

    /// The local name `QMGR/QUEUE` of queue `q` of device `q_mgr`.
    ///
    /// Errors: 2152 MQRC_OBJECT_NAME_ERROR when `q` is not a valid queue
    /// name (as the queue API answers a malformed name), and when the local
    /// name is longer than MQ's 48 characters for a queue name (IBM MQ "Rules
    /// for naming IBM MQ objects") — such a queue could never be read back
    /// through any API, so a message for it is refused here rather than
    /// stored out of reach.
    pub fn local_name(q_mgr: &str, q: &str) -> Result<String, QmError> {
        check_object_name(q, len::Q_NAME).map_err(|e| {
            QmError::new(
                Mqrc::OBJECT_NAME_ERROR,
                format!("device queue name {}: {e}", shown(q)),
            )
        })?;
        let name = format!("{q_mgr}{SEPARATOR}{q}");
        let count = name.chars().count();
        if count > len::Q_NAME {
            return Err(QmError::new(
                Mqrc::OBJECT_NAME_ERROR,
                format!(
                    "queue {q} of device queue manager {q_mgr} would be the local queue {name:?} of {count} characters; a queue name has at most {} (shorten the device or queue name)",
                    len::Q_NAME
                ),
            ));
        }
        Ok(name)
    }

    /// The device queue manager whose queue the local queue `name` is:
    /// the part before the first `/` when it is a device (a stored message's
    /// queue found at start-up).
    pub fn owner<'a>(&self, name: &'a str) -> Option<&'a str> {
        name.split_once(SEPARATOR)
            .map(|(q_mgr, _)| q_mgr)
            .filter(|q_mgr| self.is_device(q_mgr))
    }

    /// The device queue manager and the queue on it of the device queue
    /// named `name` (`QMGR/QUEUE`, split at the first `/`): `None` when the
    /// part before the `/` is no device queue manager or the queue part is
    /// empty (no device queue can have that name).
    pub fn split<'a>(&self, name: &'a str) -> Option<(&'a str, &'a str)> {
        name.split_once(SEPARATOR)
            .filter(|(q_mgr, q)| !q.is_empty() && self.is_device(q_mgr))
    }

    /// The definition of the device queue `name`: MQ's default attributes
    /// with the devices' MAXDEPTH.
    pub fn queue_def(&self, name: &str) -> LocalQueueDef {
        LocalQueueDef {
            max_depth: self.max_depth,
            ..LocalQueueDef::with_defaults(name, Usage::Normal)
        }
    }

    /// Where a message for queue `q` of device `q_mgr` goes (the caller knows
    /// `q_mgr` is a device): the device queue, created when no object has its
    /// name. Errors as [`DeviceQueueManagers::local_name`].
    pub fn destination(
        &self,
        objs: &dyn Objects,
        q_mgr: &str,
        q: &str,
    ) -> Result<Destination, QmError> {
        let name = Self::local_name(q_mgr, q)?;
        if objs.object(&name).is_some() {
            return Ok(Destination::Local { queue: name });
        }
        Ok(Destination::Create(NewQueue {
            def: self.queue_def(&name),
            origin: Origin::Device {
                q_mgr: q_mgr.to_string(),
            },
        }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn devices(patterns: &[&str]) -> DeviceQueueManagers {
        let config = DevicesConfig {
            queue_managers: patterns.iter().map(|p| p.to_string()).collect(),
            max_depth: 7,
        };
        DeviceQueueManagers::new("QM1", &config)
    }

    #[test]
    fn patterns_name_devices_but_never_this_queue_manager_or_a_slash() {
        // docs/config.md `devices`: a name matching a pattern, and not this
        // queue manager's, is a device; `*` matches any tail.
        let d = devices(&["DEV*", "QM*", "EXACT"]);
        assert!(d.is_device("DEV0001"));
        assert!(d.is_device("DEV"));
        assert!(d.is_device("EXACT"));
        assert!(!d.is_device("EXACT2"));
        assert!(!d.is_device("QM1"), "this queue manager is not a device");
        assert!(d.is_device("QM2"));
        assert!(!d.is_device("DEV1/A"), "a name with / is never a device");
        assert!(!devices(&[]).is_device("DEV1"), "[] = no devices");
    }

    #[test]
    fn device_api_names_give_2058_or_2087() {
        // IBM MQ reason codes 2058 Q_MGR_NAME_ERROR, 2087 UNKNOWN_REMOTE_Q_MGR; name
        // rules: "Rules for naming IBM MQ objects".
        assert!(DeviceQueueManagers::check_name("DEV1").is_ok());
        let e = DeviceQueueManagers::check_name("").unwrap_err();
        assert_eq!(e.mqrc, Mqrc::Q_MGR_NAME_ERROR);
        assert!(e.message.contains("empty"), "{}", e.message);
        let e = DeviceQueueManagers::check_name("DEV bad!").unwrap_err();
        assert_eq!(e.mqrc, Mqrc::Q_MGR_NAME_ERROR);
        assert!(e.message.contains("position 3"), "{}", e.message);
        let e = DeviceQueueManagers::not_a_device("OTHER");
        assert_eq!(e.mqrc, Mqrc::UNKNOWN_REMOTE_Q_MGR);
        assert!(e.message.contains("OTHER"), "{}", e.message);
        assert!(
            e.message.contains("devices.queue_managers"),
            "{}",
            e.message
        );
    }

    #[test]
    fn local_names_are_qmgr_slash_queue_and_fit_48_characters() {
        // IBM MQ "Rules for naming IBM MQ objects": queue names are 1-48 characters of
        // A-Z a-z 0-9 . / _ %; reason code 2152 MQRC_OBJECT_NAME_ERROR for both
        // a malformed queue name and a local name that does not fit.
        assert_eq!(
            DeviceQueueManagers::local_name("DEV0001", "INBOX").unwrap(),
            "DEV0001/INBOX"
        );
        assert_eq!(
            DeviceQueueManagers::local_name("DEV1", "A/B").unwrap(),
            "DEV1/A/B"
        );
        let e = DeviceQueueManagers::local_name("DEV1", "BAD NAME").unwrap_err();
        assert_eq!(e.mqrc, Mqrc::OBJECT_NAME_ERROR);
        assert!(e.message.contains("position 3"), "{}", e.message);
        // 8 + 1 + 39 = 48 characters fit; one more does not.
        let q_mgr = "DEV00001";
        let fits = "Q".repeat(39);
        assert_eq!(
            DeviceQueueManagers::local_name(q_mgr, &fits).unwrap().len(),
            48
        );
        let e = DeviceQueueManagers::local_name(q_mgr, &"Q".repeat(40)).unwrap_err();
        assert_eq!(e.mqrc, Mqrc::OBJECT_NAME_ERROR);
        assert!(e.message.contains("49 characters"), "{}", e.message);
        assert!(e.message.contains("at most 48"), "{}", e.message);
        // A queue name of 48 characters on its own is valid, yet its local
        // name is not: refused, never stored on a queue no API can address.
        let e = DeviceQueueManagers::local_name("DEV1", &"Q".repeat(48)).unwrap_err();
        assert_eq!(e.mqrc, Mqrc::OBJECT_NAME_ERROR);
    }

    #[test]
    fn stored_queues_belong_to_the_device_before_the_first_slash() {
        let d = devices(&["DEV*"]);
        assert_eq!(d.owner("DEV0001/INBOX"), Some("DEV0001"));
        assert_eq!(d.owner("DEV1/A/B"), Some("DEV1"));
        assert_eq!(d.owner("APP/INBOX"), None);
        assert_eq!(d.owner("DEV0001"), None);
        let def = d.queue_def("DEV1/INBOX");
        assert_eq!((def.name.as_str(), def.max_depth), ("DEV1/INBOX", 7));
        assert_eq!(def.usage, Usage::Normal);
    }
}
