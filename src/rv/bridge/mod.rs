//! Bridges of the subject bus (docs/rendezvous.md "Bridges"): rules between
//! subjects and MQ queues (`rv.bridges`), and the bridge to a nats-server
//! (`rv.nats`, with the `nats` cargo feature).
//!
//! Each bridge is a link of the bus ([`crate::rv::LinkId`]): its listeners
//! never get `_RV.` or `_LOCAL.` subjects, and what it brings in is never
//! handed back to it, so a queue rule cannot loop a message from its queue
//! back to a queue, nor the NATS bridge back to NATS.

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
use crate::rv::config::RvConfig;
use crate::rv::{Bus, ListenerOptions};
use crate::tasks::TaskGroup;

/// Starts the bridges of `config` on `bus`, putting and getting through
/// `mqi`. Listeners are registered before this returns, so a message
/// published afterwards crosses; the tasks run in the gateway's request
/// group and end when the bus closes or the queue manager stops. A rule
/// that cannot start is logged and left out (check-config finds what the
/// configuration can tell).
pub fn start(bus: &Bus, mqi: &Mqi, config: &RvConfig) {
    let tasks = mqi.tasks();
    let bridges = &config.bridges;
    if !bridges.to_queues.is_empty() || !bridges.from_queues.is_empty() {
        let link = bus.new_link();
        for rule in &bridges.to_queues {
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
            tasks.spawn(
                TaskGroup::Requests,
                from_queue::run(mqi.clone(), bus.clone(), link, rule.clone()),
            );
        }
    }
    #[cfg(feature = "nats")]
    if let Some(n) = &config.nats {
        nats::start(bus, n, &tasks);
    }
}
