//! Universal MOT broadcasts between gateways over NATS (docs/cluster.md
//! "The bus between gateways"; docs/messageq.md "Between groups").
//!
//! Out: the SBS server hands each universal broadcast it forwards — one
//! message, marked with its address in `forwarded_by` and the next number
//! of the MOT's stream in `forward_seq` — to [`UniversalOut`]; this task
//! publishes it on `<prefix>.sbs.universal` with the header
//! `Mqgate-Origin`. In: every other gateway's broadcast on that subject is
//! put, non-persistent, on this group's queue 99, where the SBS server
//! distributes it by its own registrations as any forwarded broadcast
//! (sequence numbers, gaps and SBS_SEQUENCE_GAP as between groups).

use super::rv::ORIGIN_HEADER;
use super::status::BusStatus;
use crate::mqi::{Mqi, Outgoing, PutOptions};
use crate::sbs::group::GroupQueues;
use crate::sbs::server::pams_md;
use async_nats::{Client, HeaderMap};
use bytes::Bytes;
use futures_util::StreamExt;
use mqgate_codecs::mq::Charset;
use mqgate_codecs::mq::constants::per;
use mqgate_codecs::pams::PamsHeader;
use mqgate_codecs::pams::address::MotKind;
use mqgate_codecs::pams::address::queues::PAMS_SBS_SERVER;
use std::sync::Arc;
use tokio::sync::mpsc;

/// The NATS subject of universal broadcasts under prefix `p`.
pub fn universal_subject(p: &str) -> String {
    format!("{p}.sbs.universal")
}

/// Why a message on the universal subject is not put on queue 99, if it
/// is not: it must be a PAMS message whose `forwarded_by` is the SBS
/// server of another group and whose target is a universal MOT.
pub fn refusal(data: &[u8], own_group: u16) -> Option<String> {
    let (h, _) = match PamsHeader::split(data) {
        Ok(x) => x,
        Err(e) => return Some(format!("not a PAMS message: {e}")),
    };
    let Some((by, _)) = h.forwarded() else {
        return Some("forwarded_by is 0.0: not a forwarded broadcast".into());
    };
    if by.queue != PAMS_SBS_SERVER || by.group == 0 || by.group == own_group {
        return Some(format!(
            "forwarded_by {by} is not the SBS server (queue 99) of another group"
        ));
    }
    match h.original_target.mot().map(|m| m.kind()) {
        Some(MotKind::Universal) => None,
        _ => Some(format!(
            "{} is not a universal MOT (5000-6000)",
            h.original_target
        )),
    }
}

/// Publishes what the SBS server hands over until it stops, and puts what
/// other gateways publish on queue 99 of `queues`' group.
pub async fn run(
    client: Client,
    prefix: String,
    me: String,
    mqi: Mqi,
    queues: Arc<GroupQueues>,
    mut out: mpsc::Receiver<Bytes>,
    status: Arc<BusStatus>,
) {
    let count = |c: &std::sync::atomic::AtomicU64| {
        c.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    };
    let subject = universal_subject(&prefix);
    let mut sub = match client.subscribe(subject.clone()).await {
        Ok(s) => s,
        Err(e) => {
            tracing::error!(subject = %subject, error = %e, "bus: cannot subscribe on NATS; universal broadcasts do not cross");
            return;
        }
    };
    let queue = queues.sbs_queue();
    let obj = match mqi.open(&queue, "") {
        Ok(o) => o,
        Err(e) => {
            tracing::error!(queue = %queue, mqrc = e.mqrc.0, error = %e.message, "bus: cannot open the SBS server's queue; universal broadcasts from other gateways are not received");
            return;
        }
    };
    tracing::info!(subject = %subject, group = queues.group(), "bus: universal MOT broadcasts cross between gateways over NATS");
    loop {
        tokio::select! {
            b = out.recv() => match b {
                Some(b) => {
                    let mut headers = HeaderMap::new();
                    headers.insert(ORIGIN_HEADER, me.as_str());
                    match client.publish_with_headers(subject.clone(), headers, b).await {
                        Ok(()) => count(&status.universal_out),
                        Err(e) => tracing::warn!(error = %e, "bus: the NATS client did not take a universal broadcast; other gateways' copies are lost"),
                    }
                }
                None => break,
            },
            m = sub.next() => match m {
                Some(m) => {
                    let origin = m.headers.as_ref().and_then(|h| h.get(ORIGIN_HEADER)).map(|v| v.as_str().to_string()).unwrap_or_default();
                    if origin == me {
                        continue;
                    }
                    if let Some(why) = refusal(&m.payload, queues.group()) {
                        count(&status.universal_dropped);
                        tracing::warn!(origin = %origin, error = %why, "bus: message on the universal broadcast subject dropped");
                        continue;
                    }
                    let Ok((header, _)) = PamsHeader::split(&m.payload) else { continue };
                    let mut md = pams_md(&header);
                    md.persistence = per::NOT_PERSISTENT;
                    let msg = Outgoing { md, charset: Charset::Ascii, data: m.payload.clone() };
                    match mqi.put(&obj, msg, PutOptions::default()).await {
                        Ok(_) => count(&status.universal_in),
                        Err(e) => {
                            count(&status.universal_dropped);
                            tracing::warn!(queue = %queue, mqrc = e.mqrc.0, error = %e.message, "bus: a universal broadcast from another gateway could not be put on the SBS server's queue; lost");
                        }
                    }
                }
                None => break,
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use mqgate_codecs::pams::QAddress;

    fn header(target: QAddress, by: QAddress) -> Vec<u8> {
        let mut h = PamsHeader::new(
            1,
            1,
            QAddress::new(10, 5),
            target,
            mqgate_codecs::pams::Endian::Little,
        );
        h.original_target = target;
        h.forwarded_by = by;
        h.forward_seq = 1;
        h.with_area(b"x")
    }

    #[test]
    fn only_forwarded_universal_broadcasts_of_other_groups_are_taken() {
        // docs/messageq.md "Between groups": universal MOTs are 5000-6000,
        // forwarded_by is queue 99 of the sending group.
        let ok = header(QAddress::new(10, 5110), QAddress::new(10, 99));
        assert_eq!(refusal(&ok, 20), None);
        assert!(refusal(&ok, 10).unwrap().contains("another group"));
        let private = header(QAddress::new(10, 4110), QAddress::new(10, 99));
        assert!(
            refusal(&private, 20)
                .unwrap()
                .contains("not a universal MOT")
        );
        let unmarked = header(QAddress::new(10, 5110), QAddress::default());
        assert!(refusal(&unmarked, 20).unwrap().contains("0.0"));
        assert!(
            refusal(b"short", 20)
                .unwrap()
                .starts_with("not a PAMS message")
        );
    }
}
