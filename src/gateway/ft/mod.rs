//! The gateway as a member of a fault tolerance group for its single-owner
//! roles (docs/rendezvous.md "mqgate's own roles"): the SBS server of its
//! MessageQ group, sender channels serving a transmission queue, and the
//! TEDG of queue spaces.
//!
//! At start the gateway joins the group of its `fault_tolerance:` section
//! in process, through its own [`FtService`] (the same members the HTTP
//! routes serve), with its actions stream open for as long as it runs. The
//! roles start on TIBRVFT_ACTIVATE and stop on TIBRVFT_DEACTIVATE, and
//! when the member leaves the group (the gateway is stopping); a member
//! that left for another reason joins again. PREPARE_TO_ACTIVATE is only
//! logged: starting a role is opening a queue and spawning a task.
//!
//! - [`config`]: the YAML section and its checks;
//! - [`roles`]: the roles themselves, started and stopped as a set;
//! - this module: the task that carries the member's actions out, and the
//!   status `GET /v1/fault-tolerance` shows.

pub mod config;
mod roles;

use roles::RoleSet;

use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use serde_json::{Value, json};
use tokio::sync::watch;

use crate::channel::StatusBoard;
use crate::config::{ChannelDef, Config};
use crate::mqi::Mqi;
use crate::rv::ft::service::{Member, MemberEvent};
use crate::rv::ft::{Action, FtError, FtService};
use crate::sbs::server::SbsServer;
use crate::tasks::TaskGroup;
use crate::tedg::QspaceRole;
use config::FaultToleranceConfig;

/// Starts the fault tolerance roles of `config` when it has a
/// `fault_tolerance` section: the roles over `mqi` (sender channels shown on
/// `board`, the SBS server `sbs` that `crate::sbs::start` held back, the
/// TEDG queue spaces `tedg`) and the task, in the gateway's channel group,
/// that joins the group through `service` and starts and stops them until
/// `stop` turns true. `None` without the section. A sender channel with
/// `tls:` connects with its client in `sender_tls`.
#[allow(clippy::too_many_arguments)]
pub(crate) fn start(
    config: &Config,
    mqi: &Mqi,
    board: &Arc<StatusBoard>,
    service: &FtService,
    sbs: Option<SbsServer>,
    tedg: Option<Arc<QspaceRole>>,
    sender_tls: &super::SenderTls,
    stop: watch::Receiver<bool>,
) -> Option<FtRoles> {
    let c = config.fault_tolerance.clone()?;
    let senders = config
        .channels
        .iter()
        .filter_map(|ch| match ch {
            ChannelDef::Sender(def) if c.roles.sender_channels.contains(&def.name) => {
                Some(def.clone())
            }
            _ => None,
        })
        .collect();
    let roles =
        RoleSet::new(mqi, board, &config.exits, senders, sbs, tedg).with_tls(sender_tls.clone());
    let handle = FtRoles::new(c);
    mqi.tasks().spawn(
        TaskGroup::Channels,
        handle.clone().run(service.clone(), roles, stop),
    );
    Some(handle)
}

/// The gateway's fault tolerance roles: their configuration and how they
/// stand; clones share them.
#[derive(Clone)]
pub struct FtRoles(Arc<Inner>);

struct Inner {
    config: FaultToleranceConfig,
    shown: Mutex<Shown>,
}

/// What the status shows besides the member's own view.
#[derive(Default)]
struct Shown {
    /// The member now, once joined.
    member: Option<Member>,
    /// Whether the roles run now.
    held: bool,
    /// When they last started or stopped, ms since 1970.
    changed: Option<u64>,
    /// How many times they started and stopped.
    activations: u64,
    deactivations: u64,
}

fn now_ms() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_millis() as u64)
        .unwrap_or(0)
}

impl FtRoles {
    /// The roles of `config`, not joined yet.
    pub(crate) fn new(config: FaultToleranceConfig) -> FtRoles {
        FtRoles(Arc::new(Inner {
            config,
            shown: Mutex::new(Shown::default()),
        }))
    }

    fn shown(&self) -> MutexGuard<'_, Shown> {
        // Updates leave the state whole before anything that could panic.
        self.0.shown.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// The section the roles come from.
    pub fn config(&self) -> &FaultToleranceConfig {
        &self.0.config
    }

    /// Whether the roles run now (the gateway is the group's active member).
    pub fn held(&self) -> bool {
        self.shown().held
    }

    /// The status of `GET /v1/fault-tolerance` (docs/http-api.md "Fault
    /// tolerance"): the group and parameters, the member's id, rank and
    /// view of the group, the roles and whether they run.
    pub fn status(&self) -> Value {
        let c = &self.0.config;
        let s = self.shown();
        let info = s.member.as_ref().map(Member::info);
        let status = info.as_ref().and_then(|i| i.status);
        let ranks: Vec<Value> = info
            .as_ref()
            .map(|i| {
                i.ranks
                    .iter()
                    .map(|r| {
                        json!({"rank": r.rank, "member": r.member, "weight": r.weight,
                               "joined": r.joined, "active": r.active})
                    })
                    .collect()
            })
            .unwrap_or_default();
        json!({
            "group": c.group,
            "member": info.as_ref().map(|i| i.member.clone()),
            "weight": info.as_ref().map_or(c.weight, |i| i.params.weight),
            "active_goal": 1,
            "heartbeat_ms": c.heartbeat_ms,
            "preparation_ms": c.preparation_ms,
            "activation_ms": c.activation_ms,
            "rank": status.map(|s| s.rank),
            "members": status.map(|s| s.members),
            "active": status.is_some_and(|s| s.active),
            "active_members": status.map(|s| s.active_members),
            "ranks": ranks,
            "roles": {
                "sbs_server": c.roles.sbs_server,
                "sender_channels": c.roles.sender_channels,
                "tedg": c.roles.tedg,
            },
            "held": s.held,
            "changed": s.changed,
            "activations": s.activations,
            "deactivations": s.deactivations,
        })
    }

    fn set_held(&self, held: bool) {
        let mut s = self.shown();
        if s.held == held {
            return;
        }
        s.held = held;
        s.changed = Some(now_ms());
        if held {
            s.activations += 1;
        } else {
            s.deactivations += 1;
        }
    }

    /// Joins the group through `service` and carries the member's actions
    /// out on `roles` until `stop` turns true or the gateway's bus closes.
    /// The roles are stopped when this returns.
    pub(crate) async fn run(
        self,
        service: FtService,
        mut roles: RoleSet,
        mut stop: watch::Receiver<bool>,
    ) {
        let c = self.0.config.clone();
        let params = c.params();
        // How long a member that could not join or lost the group waits
        // before it joins again: one heartbeat interval.
        let pause = params.heartbeat.max(Duration::from_millis(10));
        loop {
            if *stop.borrow() {
                break;
            }
            let member = match service.join(&c.group, params) {
                Ok(m) => m,
                Err(FtError::Closed) => break,
                Err(e) => {
                    // check-config refuses what join refuses: not expected.
                    tracing::error!(group = %c.group, error = %e, "fault tolerance: cannot join the group; its roles do not run");
                    break;
                }
            };
            let mut stream = match member.open_stream() {
                Ok(s) => s,
                Err(e) => {
                    tracing::error!(group = %c.group, error = %e, "fault tolerance: the member's actions cannot be read");
                    let _ = member.leave();
                    if pause_or_stop(pause, &mut stop).await {
                        break;
                    }
                    continue;
                }
            };
            tracing::info!(group = %c.group, member = %member.id(), weight = c.weight, roles = %roles.describe(), "fault tolerance: joined the group; the roles wait for TIBRVFT_ACTIVATE");
            self.shown().member = Some(member.clone());
            let left = loop {
                tokio::select! {
                    event = stream.next() => match event {
                        Ok(MemberEvent::Action(Action::Activate)) => {
                            roles.activate();
                            self.set_held(true);
                            tracing::info!(group = %c.group, member = %member.id(), roles = %roles.describe(), "fault tolerance: active; the roles started");
                        }
                        Ok(MemberEvent::Action(Action::Deactivate)) => {
                            self.deactivate(&mut roles, member.id(), "TIBRVFT_DEACTIVATE").await;
                        }
                        Ok(MemberEvent::Action(Action::PrepareToActivate)) => {
                            tracing::info!(group = %c.group, member = %member.id(), "fault tolerance: preparing to activate");
                        }
                        // The member's task logs advisories; statuses are
                        // read from the member when shown.
                        Ok(MemberEvent::Status(_) | MemberEvent::Advisory(_)) => {}
                        Err(why) => break Some(why),
                    },
                    () = stopped(&mut stop) => break None,
                }
            };
            self.deactivate(
                &mut roles,
                member.id(),
                left.unwrap_or("the gateway is stopping"),
            )
            .await;
            // The bus closes just before the stop signal: a member that
            // left because the gateway stops is no loss to report.
            let Some(why) = left else { break };
            if pause_or_stop(pause, &mut stop).await {
                break;
            }
            tracing::warn!(group = %c.group, member = %member.id(), reason = %why, "fault tolerance: the gateway's member left the group; it joins again");
        }
        roles.deactivate().await;
        self.set_held(false);
    }

    /// Stops the roles if they run, and says why.
    async fn deactivate(&self, roles: &mut RoleSet, member: &str, why: &str) {
        if !self.held() {
            return;
        }
        roles.deactivate().await;
        self.set_held(false);
        tracing::info!(group = %self.0.config.group, member = %member, reason = %why, roles = %roles.describe(), "fault tolerance: inactive; the roles stopped");
    }
}

/// Resolves once `stop` turns true.
async fn stopped(stop: &mut watch::Receiver<bool>) {
    let _ = stop.wait_for(|s| *s).await;
}

/// Waits `pause`; true when `stop` turned true meanwhile.
async fn pause_or_stop(pause: Duration, stop: &mut watch::Receiver<bool>) -> bool {
    tokio::select! {
        () = tokio::time::sleep(pause) => *stop.borrow(),
        () = stopped(stop) => true,
    }
}
