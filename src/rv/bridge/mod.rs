//! Bridges of the subject bus (docs/rendezvous.md "Bridges"): rules between
//! subjects and MQ queues (`rv.bridges`), certified or not, and the bridge
//! to a nats-server (`rv.nats`, with the `nats` cargo feature).
//!
//! Each bridge is a link of the bus ([`crate::rv::LinkId`]): its listeners
//! never get `_RV.` or `_LOCAL.` subjects, and what it brings in is never
//! handed back to it, so a queue rule cannot loop a message from its queue
//! back to a queue, nor the NATS bridge back to NATS. A certified rule
//! (`certified: CMNAME`) moves its messages through a CM transport instead
//! (docs/rendezvous.md "Certified bridges"), whose messages no link can
//! tell apart; check-config refuses the rules that could loop through one.

mod cm_from_queue;
mod cm_to_queue;
pub mod config;
mod from_queue;
pub mod mq_form;
#[cfg(feature = "nats")]
mod nats;
pub mod nats_map;
#[cfg(test)]
mod tests;
mod to_queue;

pub use config::{BodyForm, BridgesConfig, FromQueueRule, NatsConfig, ToQueueRule};
#[cfg(feature = "nats")]
pub use nats::REFUSED_ADVISORY;

use crate::mqi::Mqi;
use crate::rv::cm::{CmError, CmTransport, CmTransports, ConfirmMode, CreateOptions, LedgerKind};
use crate::rv::config::RvConfig;
use crate::rv::{Bus, ListenerOptions};
use crate::tasks::TaskGroup;

/// Starts the bridges of `config` on `bus`, putting and getting through
/// `mqi`; certified rules open their CM transports in `cm`. Listeners
/// (certified ones included) are registered before this returns, so a
/// message published afterwards crosses; the tasks run in the gateway's
/// request group and end when the bus closes or the queue manager stops. A
/// rule that cannot start is logged and left out (check-config finds what
/// the configuration can tell). TLS clients (`rv.nats.tls`) register in
/// `tls` for certificate reloads.
pub async fn start(
    bus: &Bus,
    mqi: &Mqi,
    config: &RvConfig,
    cm: &CmTransports,
    tls: &crate::security::tls::TlsEndpoints,
) {
    let tasks = mqi.tasks();
    let bridges = &config.bridges;
    if !bridges.to_queues.is_empty() || !bridges.from_queues.is_empty() {
        let link = bus.new_link();
        for rule in &bridges.to_queues {
            if let Some(name) = &rule.certified {
                let listening = match open_certified(cm, name).await {
                    Ok(t) => {
                        t.listen(std::slice::from_ref(&rule.subject), ConfirmMode::Explicit)
                            .await
                    }
                    Err(e) => Err(e),
                };
                match listening {
                    Ok(l) => {
                        tasks.spawn(
                            TaskGroup::Requests,
                            cm_to_queue::run(mqi.clone(), l, rule.clone()),
                        );
                    }
                    Err(e) => {
                        tracing::error!(subject = %rule.subject, queue = %rule.queue, cm_name = %name, error = %e, "certified subject bridge cannot listen; rule not started");
                    }
                }
                continue;
            }
            let options = ListenerOptions {
                name: format!("bridge to queue {}", rule.queue),
                queue_len: None,
                link: Some(link),
            };
            match bus.listen(&[rule.subject.as_str()], options) {
                Ok(l) => {
                    tasks.spawn(
                        TaskGroup::Requests,
                        to_queue::run(mqi.clone(), l, rule.clone()),
                    );
                }
                Err(e) => {
                    tracing::error!(subject = %rule.subject, queue = %rule.queue, error = %e, "subject bridge cannot listen; rule not started");
                }
            }
        }
        for rule in &bridges.from_queues {
            if let Some(name) = &rule.certified {
                match open_certified(cm, name).await {
                    Ok(t) => {
                        tasks.spawn(
                            TaskGroup::Requests,
                            cm_from_queue::run(mqi.clone(), bus.clone(), t, rule.clone()),
                        );
                    }
                    Err(e) => {
                        tracing::error!(queue = %rule.queue, subject = %rule.subject, cm_name = %name, error = %e, "certified queue bridge cannot open its transport; rule not started");
                    }
                }
                continue;
            }
            tasks.spawn(
                TaskGroup::Requests,
                from_queue::run(mqi.clone(), bus.clone(), link, rule.clone()),
            );
        }
    }
    #[cfg(feature = "nats")]
    if let Some(n) = &config.nats {
        nats::start(bus, n, &tasks, tls);
    }
    #[cfg(not(feature = "nats"))]
    let _ = tls;
}

/// Opens (or finds, when the gateway reopened it) the CM transport of a
/// certified rule: a persistent correspondent (a reusable name with a
/// store ledger) with `request_old`, so that after a restart its listener
/// asks its senders for what it did not confirm.
///
/// Errors: those of [`CmTransports::create`]; [`CmError::NameInUse`] when
/// a transport of that name is open with another ledger or `request_old`.
async fn open_certified(cm: &CmTransports, name: &str) -> Result<CmTransport, CmError> {
    let options = CreateOptions {
        name: Some(name.to_string()),
        ledger: LedgerKind::Store,
        request_old: true,
        ..CreateOptions::default()
    };
    cm.create(options).await.map(|(t, _)| t)
}
