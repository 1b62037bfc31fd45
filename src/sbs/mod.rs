//! BEA MessageQ Selective Broadcast Services: the gateway as one MessageQ
//! message queuing group (`messageq:` in the configuration, its group
//! initialization file) and the group's SBS server on queue 99 (BEA
//! MessageQ 5.0 Programmer's Guide, "Broadcasting Messages";
//! docs/messageq.md).
//!
//! - [`attach`]: attachments of PAMS API clients (`pams_attach_q`,
//!   `pams_exit`), temporary queues, and the registrations they own.
//! - [`config`]: the `messageq:` YAML section.
//! - [`delivery`]: what a put's delivery mode and UMA mean (pure).
//! - [`group`]: the group's queues as mqgate queues (%QCT names or
//!   `PAMS.<group>.<queue>`, with their quotas), and other groups' queues.
//! - [`bus`]: the other groups of the bus (`%XGROUP`, `messageq.groups`) and
//!   the sequence numbers of forwarded universal broadcasts (pure).
//! - [`registry`]: registrations, one copy per queue, gap counters (pure).
//! - [`logic`]: what a request or a broadcast becomes (pure).
//! - [`server`]: the task that reads queue 99 and puts through src/mqi/.
//!
//! PAMS messages sit on mqgate queues behind the PAMS message header of
//! `mqgate_codecs::pams::envelope` (MQMD Format `MQGPAMS`). A put to a MOT
//! is a message on the SBS server's queue whose header `original_target` is
//! the MOT ("Any message directed to a MOT address is automatically
//! redirected to the group's SBS Server").

pub mod attach;
pub mod bus;
pub mod config;
pub mod delivery;
pub mod durable;
pub mod group;
pub mod logic;
pub mod registry;
pub mod server;

use crate::config::Config;
use crate::mqi::Mqi;
use crate::tasks::TaskGroup;
use group::GroupQueues;
use mqgate_codecs::pams::init_file::InitFile;
use std::sync::Arc;

/// A group's configuration, ready for [`start`].
#[derive(Clone, Debug)]
pub struct Loaded {
    /// The group's queues.
    pub queues: Arc<GroupQueues>,
    /// `ENABLE_SBS` of `%PROFILE` (default YES).
    pub enable_sbs: bool,
    /// The group initialization file, when `messageq.init_file` names one
    /// (its `%GNT` serves `pams_locate_q`, src/http/pams.rs).
    pub init: Option<Arc<InitFile>>,
    /// How attachments are made (`messageq.temporary_queues`,
    /// `messageq.attachment_timeout_ms`).
    pub attach: attach::AttachSettings,
    /// `messageq.durable_registrations`.
    pub durable_registrations: bool,
}

/// A started group: its configuration and the attachments of its clients.
pub struct Group {
    /// The configuration.
    pub loaded: Loaded,
    /// The attachments (src/sbs/attach.rs).
    pub attachments: Arc<attach::Attachments>,
}

/// Reads the group initialization file of `config.messageq` (if any) and
/// adds the group's queues (%QCT, and the SBS server's queue 99 when
/// `ENABLE_SBS`) to `config.queues`; a queue already defined there is kept
/// as defined. `Ok(None)` without a `messageq:` section.
///
/// Errors: one line per problem, `FILE:LINE:COLUMN: what (-282
/// PAMS__BADINITFILE)` for the init file (its first fault as read — the
/// first byte that is not UTF-8 included — then every `%QCT` entry that
/// cannot be a queue, [`group::GroupQueues::queue_defs`]), or a file that
/// cannot be read.
pub fn load_from_config(config: &mut Config) -> Result<Option<Loaded>, Vec<String>> {
    let Some(m) = config.messageq.clone() else {
        return Ok(None);
    };
    let group = u16::try_from(m.group)
        .ok()
        .filter(|g| (config::MIN_GROUP..=config::MAX_GROUP).contains(&u32::from(*g)))
        .ok_or_else(|| {
            vec![format!(
                "messageq.group: {} is not a MessageQ group number: groups are {} to {}",
                m.group,
                config::MIN_GROUP,
                config::MAX_GROUP
            )]
        })?;
    let (init, file) = match &m.init_file {
        None => (None, String::new()),
        Some(path) => {
            let file = path.display().to_string();
            let bytes = std::fs::read(path).map_err(|e| {
                vec![format!(
                    "{file}: cannot read the group initialization file: {e}"
                )]
            })?;
            let init = InitFile::parse_bytes(&bytes).map_err(|e| {
                vec![format!(
                    "{file}:{}:{}: {} ({})",
                    e.pos.line,
                    e.pos.column,
                    e.kind,
                    e.pams_status()
                )]
            })?;
            (Some(init), file)
        }
    };
    let enable_sbs = init.as_ref().is_none_or(InitFile::enable_sbs);
    let temporary_queues = m.temporary_queues.check().map_err(|e| vec![e])?;
    let timeout_ms = m.attachment_timeout_ms;
    if !(attach::MIN_TIMEOUT_MS..=config::MAX_ATTACHMENT_TIMEOUT_MS).contains(&timeout_ms) {
        return Err(vec![format!(
            "messageq.attachment_timeout_ms: {timeout_ms} is not {} to {} ms",
            attach::MIN_TIMEOUT_MS,
            config::MAX_ATTACHMENT_TIMEOUT_MS
        )]);
    }
    let attach = attach::AttachSettings {
        temporary_queues,
        default_timeout: std::time::Duration::from_millis(timeout_ms),
        max_timeout: std::time::Duration::from_millis(config::MAX_ATTACHMENT_TIMEOUT_MS),
        sbs: enable_sbs,
    };
    let bus =
        bus::Bus::load(group, init.as_ref(), &file, &m.groups)?.with_nats(config.bus.is_some());
    check_xmit_queues(config, &bus)?;
    let queues = GroupQueues::new(group, init.as_ref()).with_bus(bus);
    for def in queues.queue_defs(init.as_ref(), &file, enable_sbs)? {
        if !config.queues.iter().any(|q| q.name() == def.name()) {
            config.queues.push(def);
        }
    }
    Ok(Some(Loaded {
        queues: Arc::new(queues),
        enable_sbs,
        init: init.map(Arc::new),
        attach,
        durable_registrations: m.durable_registrations,
    }))
}

/// Checks the transmission queues `messageq.groups` names: each must be a
/// local queue with `usage: xmitq`, and no other object may be named like
/// the group's queue manager (that name becomes its queue manager alias).
fn check_xmit_queues(config: &Config, bus: &bus::Bus) -> Result<(), Vec<String>> {
    use crate::config::{QueueDef, Usage};
    let queues = config.effective_queues();
    let mut errors = Vec::new();
    for r in bus.groups() {
        let Some(x) = r.xmit_queue.as_deref().filter(|x| *x != r.q_mgr) else {
            continue;
        };
        let path = format!("messageq.groups.{}.xmit_queue", r.group);
        match queues.iter().find(|q| q.name() == x) {
            Some(QueueDef::Local(l)) if l.usage == Usage::Xmitq => {}
            Some(_) => errors.push(format!("{path}: {x} is not a local queue with usage xmitq")),
            None => errors.push(format!("{path}: queue {x} is not defined")),
        }
        if queues.iter().any(|q| q.name() == r.q_mgr) {
            errors.push(format!(
                "{path}: a queue named {} (group {}'s queue manager) is defined, so no queue manager alias of that name can send through {x}",
                r.q_mgr, r.group
            ));
        }
    }
    if errors.is_empty() {
        Ok(())
    } else {
        Err(errors)
    }
}

/// Starts group `loaded`: the reaper of its attachments and, when
/// `ENABLE_SBS`, its SBS server, as tasks of the gateway that end when the
/// gateway stops. With `server_is_role` the SBS server is a fault tolerance
/// role (docs/rendezvous.md "mqgate's own roles"): it is returned, not
/// started, for the gateway to run while it is the group's active member.
///
/// With `universal` (the gateway's bus between gateways, docs/cluster.md
/// "The bus between gateways") the SBS server forwards universal broadcasts
/// there.
pub fn start(
    mqi: &Mqi,
    loaded: Loaded,
    server_is_role: bool,
    universal: Option<server::UniversalOut>,
) -> (Group, Option<server::SbsServer>) {
    let attachments = Arc::new(attach::Attachments::new(
        loaded.attach.clone(),
        Arc::clone(&loaded.queues),
        mqi.clone(),
    ));
    mqi.tasks()
        .spawn(TaskGroup::Timers, Arc::clone(&attachments).reaper());
    let mut role = None;
    if loaded.enable_sbs {
        let mut server = server::SbsServer::new(
            mqi.clone(),
            Arc::clone(&loaded.queues),
            Arc::clone(&attachments),
            loaded.durable_registrations,
        );
        if let Some(u) = universal {
            server = server.with_universal(u);
        }
        if server_is_role {
            role = Some(server);
        } else {
            mqi.tasks().spawn(TaskGroup::Requests, server.run());
        }
    } else {
        tracing::info!(
            group = loaded.queues.group(),
            "ENABLE_SBS NO: no SBS server"
        );
    }
    (
        Group {
            loaded,
            attachments,
        },
        role,
    )
}
