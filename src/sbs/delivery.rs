//! What a `pams_put_msg` delivery mode and undeliverable-message action
//! (UMA) mean for a put through the gateway, without I/O (docs/messageq.md
//! "Delivery modes and UMAs").
//!
//! A delivery mode is `PDEL_MODE_sn_dip` (BEA MessageQ Programmer's Guide,
//! "Delivery Modes and UMAs" appendix): `sn` the notification — WF "Wait
//! for completion", AK "Asynchronous acknowledgment", NN "No notification"
//! — and `dip` the delivery interest point — SAF "Stored in the store and
//! forward file", DQF "Stored in the destination queue file", MEM "Stored
//! in the target queue", DEQ "Read from the target queue", CONF and ACK
//! (explicitly confirmed or acknowledged with `pams_confirm_msg`), and NET
//! and RCM of `p_symbol.h` 5.0. Values are those of `p_symbol.h` 5.0
//! (`mqgate_codecs::pams::symbols`), return codes those of `p_return.h`
//! V4.0-09.
//!
//! mqgate puts a PAMS message straight onto the target's mqgate queue, in
//! the call: the recoverable points (SAF, DQF) are a persistent message in
//! the gateway's store, MEM and NET a non-persistent one, and every mode
//! mqgate can give answers with the outcome. What it cannot give honestly
//! is refused before anything is put.

use mqgate_codecs::mq::Mqrc;
use mqgate_codecs::pams::PamsStatus;
use mqgate_codecs::pams::symbols::PDEL_MODES;

/// The notification part of a delivery mode (`sn` of `PDEL_MODE_sn_dip`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Notification {
    /// WF: "Wait for completion" — the call returns the delivery outcome.
    WaitFor,
    /// AK: "Asynchronous acknowledgment" — an acknowledgement message later.
    Ack,
    /// NN: "No notification".
    None,
}

/// The delivery interest point (`dip` of `PDEL_MODE_sn_dip`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Point {
    /// SAF: stored in the store and forward file (recoverable).
    Saf,
    /// DQF: stored in the destination queue file (recoverable).
    Dqf,
    /// NET: handed to the network (not recoverable).
    Net,
    /// RCM (`p_symbol.h` only; the Programmer's Guide lists no RCM point).
    Rcm,
    /// MEM: stored in the target queue (not recoverable).
    Mem,
    /// DEQ: read from the target queue.
    Deq,
    /// CONF: delivered from the DQF and confirmed with `pams_confirm_msg`.
    Conf,
    /// ACK: read and acknowledged with `pams_confirm_msg`.
    AckRead,
}

/// A known delivery mode: its `p_symbol.h` name and value and its parts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DeliveryMode {
    /// `PDEL_MODE_*` name.
    pub name: &'static str,
    /// Its value (25-45).
    pub value: i32,
    /// WF, AK or NN.
    pub notification: Notification,
    /// Where delivery counts as done.
    pub point: Point,
}

impl DeliveryMode {
    /// The mode of `value`, `None` when it is no `PDEL_MODE_*` of
    /// `p_symbol.h` 5.0.
    pub fn from_value(value: i32) -> Option<DeliveryMode> {
        let &(name, _) = PDEL_MODES.iter().find(|(_, v)| *v == value)?;
        let rest = name.strip_prefix("PDEL_MODE_")?;
        let (sn, dip) = rest.split_once('_')?;
        let notification = match sn {
            "WF" => Notification::WaitFor,
            "AK" => Notification::Ack,
            "NN" => Notification::None,
            _ => return None,
        };
        let point = match dip {
            "SAF" => Point::Saf,
            "DQF" => Point::Dqf,
            "NET" => Point::Net,
            "RCM" => Point::Rcm,
            "MEM" => Point::Mem,
            "DEQ" => Point::Deq,
            "CONF" => Point::Conf,
            "ACK" => Point::AckRead,
            _ => return None,
        };
        Some(DeliveryMode {
            name,
            value,
            notification,
            point,
        })
    }

    /// True for the recoverable points SAF and DQF (Programmer's Guide,
    /// "Using Recoverable Messaging": recoverable messages are written to
    /// nonvolatile storage).
    pub fn is_recoverable(&self) -> bool {
        matches!(self.point, Point::Saf | Point::Dqf)
    }
}

/// An undeliverable-message action `PDEL_UMA_*` (`p_symbol.h` 5.0).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Uma {
    /// RTS 1: return to sender.
    Rts,
    /// DLJ 2: dead letter journal.
    Dlj,
    /// DLQ 3: dead letter queue.
    Dlq,
    /// SAF 4: store and forward.
    Saf,
    /// DISC 5: discard.
    Disc,
    /// DISCL 6: discard after logging.
    Discl,
}

impl Uma {
    /// The action of `value`, `None` when it is no `PDEL_UMA_*`.
    pub fn from_value(value: i32) -> Option<Uma> {
        Some(match value {
            1 => Uma::Rts,
            2 => Uma::Dlj,
            3 => Uma::Dlq,
            4 => Uma::Saf,
            5 => Uma::Disc,
            6 => Uma::Discl,
            _ => return None,
        })
    }

    /// The `PDEL_UMA_*` name (`p_symbol.h` 5.0).
    pub fn name(self) -> &'static str {
        match self {
            Uma::Rts => "PDEL_UMA_RTS",
            Uma::Dlj => "PDEL_UMA_DLJ",
            Uma::Dlq => "PDEL_UMA_DLQ",
            Uma::Saf => "PDEL_UMA_SAF",
            Uma::Disc => "PDEL_UMA_DISC",
            Uma::Discl => "PDEL_UMA_DISCL",
        }
    }

    /// The return code of the action once done (`p_return.h`): RTS 19
    /// PAMS__RTS_SUCCESS, DLQ 17 PAMS__DLQ_SUCCESS, DISC 11
    /// PAMS__DISC_SUCCESS, DISCL 13 PAMS__DISCL_SUCCESS (DLJ 15 and SAF 21
    /// for completeness: mqgate refuses those actions).
    pub fn success(self) -> PamsStatus {
        match self {
            Uma::Rts => PamsStatus::RTS_SUCCESS,
            Uma::Dlj => PamsStatus::DLJ_SUCCESS,
            Uma::Dlq => PamsStatus::DLQ_SUCCESS,
            Uma::Saf => PamsStatus::SAF_SUCCESS,
            Uma::Disc => PamsStatus::DISC_SUCCESS,
            Uma::Discl => PamsStatus::DISCL_SUCCESS,
        }
    }
}

/// How one put is to be done.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Plan {
    /// The delivery mode.
    pub mode: DeliveryMode,
    /// The UMA to run when the target cannot take the message.
    pub uma: Uma,
    /// The mqgate message is persistent (MQPER_PERSISTENT): SAF and DQF.
    pub persistent: bool,
    /// The delivery status once the message is on the target queue:
    /// PAMS__STORED 31 for a recoverable message (written to the store),
    /// PAMS__ENQUEUED 33 for a non-recoverable one (on the target queue).
    pub stored: PamsStatus,
}

/// A put refused before anything was put: the status, the request field
/// (`delivery` or `uma`) and why.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Refused {
    /// PAMS__BADDELIVERY -60, PAMS__BADUMA -222 or PAMS__NOTSUPPORTED -268.
    pub status: PamsStatus,
    /// `delivery` or `uma`.
    pub field: &'static str,
    /// What is wrong, naming the mode or action.
    pub message: String,
}

fn refused(status: PamsStatus, field: &'static str, message: String) -> Refused {
    Refused {
        status,
        field,
        message,
    }
}

/// Where the message of a put goes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PutTo {
    /// The target is a MOT (a broadcast through the SBS server).
    pub mot: bool,
    /// The sender gave a response queue (where RTS returns the message).
    pub resp_q: bool,
}

/// The plan for a put with `delivery` and `uma` (values) to `to`.
///
/// Errors:
/// - a value that is no `PDEL_MODE_*`: PAMS__BADDELIVERY; no `PDEL_UMA_*`:
///   PAMS__BADUMA;
/// - AK modes: PAMS__NOTSUPPORTED — mqgate sends no asynchronous
///   acknowledgement message (MessageQ's acknowledgement message and the PSB
///   it carries have no public layout); WF modes report the same outcome in
///   the answer;
/// - DEQ, CONF, ACK points: PAMS__NOTSUPPORTED — they wait for the receiver
///   to read the message or to confirm it with `pams_confirm_msg`, which
///   mqgate does not serve;
/// - RCM: PAMS__NOTSUPPORTED — the Programmer's Guide names no RCM point, so
///   what it would wait for is not known;
/// - a recoverable mode (SAF, DQF) to a MOT: PAMS__BADDELIVERY —
///   "Broadcast messages cannot be stored for automatic recovery"
///   (Programmer's Guide, "Broadcasting Messages");
/// - UMA SAF and DLJ: PAMS__BADUMA — mqgate keeps no store and forward file
///   to retry from and no dead letter journal;
/// - UMA RTS without a response queue: PAMS__BADUMA — there is no queue to
///   return the message to (an HTTP client attaches none).
pub fn plan(delivery: i32, uma: i32, to: PutTo) -> Result<Plan, Refused> {
    let mode = DeliveryMode::from_value(delivery).ok_or_else(|| {
        refused(
            PamsStatus::BADDELIVERY,
            "delivery",
            format!("{delivery} is no PDEL_MODE_* value (25 to 45, p_symbol.h 5.0)"),
        )
    })?;
    let action = Uma::from_value(uma).ok_or_else(|| {
        refused(
            PamsStatus::BADUMA,
            "uma",
            format!("{uma} is no PDEL_UMA_* value (1 to 6, p_symbol.h 5.0)"),
        )
    })?;
    let name = mode.name;
    let not_supported = |why: &str| {
        refused(
            PamsStatus::NOTSUPPORTED,
            "delivery",
            format!("{name}: {why}"),
        )
    };
    match mode.point {
        Point::Deq => {
            return Err(not_supported(
                "waits until the receiver reads the message; mqgate's put does not wait for the receiver",
            ));
        }
        Point::Conf | Point::AckRead => {
            return Err(not_supported(
                "waits for the receiver's pams_confirm_msg, which mqgate does not serve",
            ));
        }
        Point::Rcm => {
            return Err(not_supported(
                "the Programmer's Guide names no RCM delivery point, so what it waits for is not known",
            ));
        }
        Point::Saf | Point::Dqf | Point::Net | Point::Mem => {}
    }
    if mode.notification == Notification::Ack {
        return Err(not_supported(
            "mqgate sends no asynchronous acknowledgement message (its layout is not public); use the PDEL_MODE_WF_ mode, whose answer carries the delivery status",
        ));
    }
    if to.mot && mode.is_recoverable() {
        return Err(refused(
            PamsStatus::BADDELIVERY,
            "delivery",
            format!(
                "{name} to a MOT: \"Broadcast messages cannot be stored for automatic recovery\" (Programmer's Guide, \"Broadcasting Messages\"); use a MEM or NET mode"
            ),
        ));
    }
    match action {
        Uma::Saf => {
            return Err(refused(
                PamsStatus::BADUMA,
                "uma",
                "PDEL_UMA_SAF: mqgate keeps no store and forward file to deliver from later; use PDEL_UMA_DLQ, RTS, DISC or DISCL".into(),
            ));
        }
        Uma::Dlj => {
            return Err(refused(
                PamsStatus::BADUMA,
                "uma",
                "PDEL_UMA_DLJ: mqgate keeps no dead letter journal; PDEL_UMA_DLQ puts the message on the dead-letter queue".into(),
            ));
        }
        Uma::Rts if !to.resp_q => {
            return Err(refused(
                PamsStatus::BADUMA,
                "uma",
                "PDEL_UMA_RTS returns an undeliverable message to the sender's queue: give resp_q"
                    .into(),
            ));
        }
        _ => {}
    }
    let persistent = mode.is_recoverable();
    Ok(Plan {
        mode,
        uma: action,
        persistent,
        stored: if persistent {
            PamsStatus::STORED
        } else {
            PamsStatus::ENQUEUED
        },
    })
}

/// True when a put that failed with `mqrc` means the target cannot take the
/// message, so the UMA runs: 2053 MQRC_Q_FULL (over the %QCT quota,
/// PAMS__EXCEEDQUOTA), 2085 MQRC_UNKNOWN_OBJECT_NAME (no such queue in the
/// group, PAMS__NOOBJECT), 2051 MQRC_PUT_INHIBITED (PAMS__NOTACTIVE). Other
/// failures (the gateway stopping, a message too big) are the caller's
/// answer as they are.
pub fn runs_uma(mqrc: Mqrc) -> bool {
    matches!(
        mqrc,
        Mqrc::Q_FULL | Mqrc::UNKNOWN_OBJECT_NAME | Mqrc::PUT_INHIBITED
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    const TO_QUEUE: PutTo = PutTo {
        mot: false,
        resp_q: true,
    };

    // Values: p_symbol.h 5.0: WF_SAF 25 …
    // WF_MEM 29, AK_SAF 30 … AK_MEM 34, NN_SAF 35 … NN_MEM 39, WF_DEQ 40,
    // AK_DEQ 41, WF_CONF 42, AK_CONF 43, WF_ACK 44, AK_ACK 45; UMA RTS 1,
    // DLJ 2, DLQ 3, SAF 4, DISC 5, DISCL 6. Statuses: p_return.h V4.0-09.

    #[test]
    fn recoverable_modes_are_persistent_and_stored() {
        for v in [25, 26, 35, 36] {
            let p = plan(v, 5, TO_QUEUE).unwrap();
            assert!(p.persistent, "{v}");
            assert_eq!(p.stored, PamsStatus(31), "{v}: PAMS__STORED");
        }
        for v in [27, 29, 37, 39] {
            let p = plan(v, 5, TO_QUEUE).unwrap();
            assert!(!p.persistent, "{v}");
            assert_eq!(p.stored, PamsStatus(33), "{v}: PAMS__ENQUEUED");
        }
    }

    #[test]
    fn modes_mqgate_cannot_give_are_not_supported() {
        // RCM 28/33/38, every AK mode 30-34, 41, 43, 45, WF_DEQ 40,
        // WF_CONF 42, WF_ACK 44: PAMS__NOTSUPPORTED -268.
        for v in [28, 30, 31, 32, 33, 34, 38, 40, 41, 42, 43, 44, 45] {
            let e = plan(v, 5, TO_QUEUE).unwrap_err();
            assert_eq!(e.status, PamsStatus(-268), "{v}");
            assert_eq!(e.field, "delivery");
            let name = PDEL_MODES.iter().find(|(_, x)| *x == v).unwrap().0;
            assert!(e.message.starts_with(name), "{v}: {}", e.message);
        }
    }

    #[test]
    fn bad_values_and_combinations() {
        for v in [0, 24, 46, -1] {
            assert_eq!(plan(v, 5, TO_QUEUE).unwrap_err().status, PamsStatus(-60));
        }
        for u in [0, 7, -5] {
            let e = plan(39, u, TO_QUEUE).unwrap_err();
            assert_eq!((e.status, e.field), (PamsStatus(-222), "uma"));
        }
        // UMA SAF 4 and DLJ 2: PAMS__BADUMA -222.
        for u in [2, 4] {
            assert_eq!(plan(39, u, TO_QUEUE).unwrap_err().status, PamsStatus(-222));
        }
        // RTS 1 without a response queue.
        let alone = PutTo {
            mot: false,
            resp_q: false,
        };
        assert_eq!(plan(39, 1, alone).unwrap_err().status, PamsStatus(-222));
        assert!(plan(39, 1, TO_QUEUE).is_ok());
        // A recoverable mode to a MOT: PAMS__BADDELIVERY -60; MEM and NET pass.
        let mot = PutTo {
            mot: true,
            resp_q: true,
        };
        for v in [25, 26, 35, 36] {
            assert_eq!(plan(v, 5, mot).unwrap_err().status, PamsStatus(-60), "{v}");
        }
        for v in [27, 29, 37, 39] {
            assert!(plan(v, 5, mot).is_ok(), "{v}");
        }
    }

    #[test]
    fn uma_statuses_and_triggers() {
        // p_return.h V4.0-09: DISC_SUCCESS 11, DISCL_SUCCESS 13, DLQ_SUCCESS
        // 17, RTS_SUCCESS 19.
        for (u, s) in [(1, 19), (3, 17), (5, 11), (6, 13)] {
            let a = Uma::from_value(u).unwrap();
            assert_eq!(a.success(), PamsStatus(s));
            assert_eq!(plan(39, u, TO_QUEUE).unwrap().uma, a);
        }
        // Every name is the p_symbol.h name of its value.
        for &(name, value) in &mqgate_codecs::pams::symbols::PDEL_UMAS {
            assert_eq!(Uma::from_value(value).unwrap().name(), name);
        }
        assert!(runs_uma(Mqrc::Q_FULL));
        assert!(runs_uma(Mqrc::UNKNOWN_OBJECT_NAME));
        assert!(!runs_uma(Mqrc::Q_MGR_STOPPING));
        assert!(!runs_uma(Mqrc::MSG_TOO_BIG_FOR_Q));
    }
}
