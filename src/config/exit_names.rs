//! The objects the `exits:` section names must exist: a channel of this
//! configuration for `exits.channels.NAME`, and for `exits.queues.NAME` a
//! queue the gateway has or creates at run time (docs/config.md `exits`).
//! An entry for an object that never exists would silently never run.

use super::{Config, QueueDef};
use crate::qmgr::names::{check_object_name, matches_pattern};
use crate::route::DeviceQueueManagers;
use mqgate_codecs::mq::constants::len;
use std::collections::HashMap;

/// Prefix of the queue-manager queues that hold RTQ queues (docs/tuxedo.md:
/// `RTQ.<group>.<name>`, see `crate::tedg::qm_queue_name`).
const RTQ_PREFIX: &str = "RTQ.";

/// Each `exits.channels.NAME` that is no channel of `config` (the embedded
/// default's `TO.MQGATE` counts while `channels:` is not written) and each
/// `exits.queues.NAME` that names no queue the gateway has or creates, as
/// (path, problem).
pub fn check(
    config: &Config,
    by_name: &HashMap<&str, (usize, &QueueDef)>,
) -> Vec<(String, String)> {
    let mut out = Vec::new();
    let mut err = |path: &str, problem: String| out.push((path.to_string(), problem));
    for name in config.exits.channels.keys() {
        if config.channels.iter().any(|c| c.name() == name) {
            continue;
        }
        let known: Vec<&str> = config.channels.iter().map(|c| c.name()).collect();
        let known = if known.is_empty() {
            "none are defined".to_string()
        } else {
            format!("defined: {}", known.join(", "))
        };
        err(
            &format!("exits.channels.{name}"),
            format!(
                "{name:?} is not a channel of this configuration ({known}); define it in channels:"
            ),
        );
    }
    let devices = DeviceQueueManagers::new(&config.queue_manager.name, &config.devices);
    for name in config.exits.queues.keys() {
        if check_object_name(name, len::Q_NAME).is_err() {
            // Reported with what is wrong by the exits check.
            continue;
        }
        if !exists_at_run_time(config, by_name, &devices, name) {
            err(
                &format!("exits.queues.{name}"),
                format!(
                    "{name:?} is not a queue of this configuration (one in queues:, the dead-letter or default transmission queue, a name a model queue's dynamic_q_name matches, a device queue QMGR/QUEUE of devices.queue_managers, or an RTQ queue RTQ.<group>.<name>): MQRC 2085 MQRC_UNKNOWN_OBJECT_NAME"
                ),
            );
        }
    }
    out
}

/// True when queue `name` is defined, is the dead-letter queue or the
/// default transmission queue (created when not defined), would be created
/// from a model queue (its DynamicQName pattern matches), is the queue of a
/// device queue manager (`QMGR/QUEUE`, created on first use), or is an RTQ
/// queue (created from the DMCONFIG, which `mqgate run --dmconfig` may give
/// only at start-up, so the shape is what can be checked here).
fn exists_at_run_time(
    config: &Config,
    by_name: &HashMap<&str, (usize, &QueueDef)>,
    devices: &DeviceQueueManagers,
    name: &str,
) -> bool {
    let qm = &config.queue_manager;
    if by_name.contains_key(name)
        || name == qm.dead_letter_queue
        || (!qm.default_xmit_queue.is_empty() && name == qm.default_xmit_queue)
    {
        return true;
    }
    let from_model = config.queues.iter().any(|q| match q {
        QueueDef::Model(d) => d
            .dynamic_q_name
            .as_deref()
            .is_some_and(|p| matches_pattern(p, name)),
        _ => false,
    });
    let device_queue =
        devices.owner(name).is_some() && name.split_once('/').is_some_and(|(_, q)| !q.is_empty());
    from_model || device_queue || is_rtq_name(name)
}

/// `RTQ.<group>.<name>` with a non-empty group and name.
fn is_rtq_name(name: &str) -> bool {
    name.strip_prefix(RTQ_PREFIX)
        .and_then(|rest| rest.split_once('.'))
        .is_some_and(|(group, q)| !group.is_empty() && !q.is_empty())
}
