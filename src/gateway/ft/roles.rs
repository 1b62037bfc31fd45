//! The single-owner roles of one gateway, started and stopped together
//! (docs/rendezvous.md "mqgate's own roles"):
//!
//! - a sender channel runs as a task of its own with a stop signal of its
//!   own; stopping it lets the batch in flight be confirmed first, as a
//!   gateway stop does (docs/channel-protocol.md "Sender channels");
//! - the SBS server serves queue 99 until told to stop and hands itself
//!   back, registrations included, for the next activation;
//! - the TEDG's queue spaces are a switch the TEDG reads on each call.

use std::fmt::Write as _;
use std::sync::Arc;

use mqgate_exits::ExitsConfig;
use tokio::sync::watch;
use tokio::task::JoinHandle;
use tokio_util::sync::CancellationToken;

use crate::channel::StatusBoard;
use crate::channel::sender_channel::SenderChannel;
use crate::config::SenderChannelDef;
use crate::mqi::Mqi;
use crate::sbs::server::SbsServer;
use crate::tasks::TaskGroup;
use crate::tedg::QspaceRole;

/// A sender channel that runs only while the roles do.
struct SenderRole {
    def: SenderChannelDef,
    running: Option<(watch::Sender<bool>, JoinHandle<Option<()>>)>,
}

/// The SBS server, idle or serving.
enum SbsRole {
    Idle(Box<SbsServer>),
    Serving(CancellationToken, JoinHandle<Option<SbsServer>>),
    /// Ended with the gateway's tasks.
    Gone,
}

/// Every role of the gateway's `fault_tolerance.roles`.
pub(crate) struct RoleSet {
    mqi: Mqi,
    board: Arc<StatusBoard>,
    exits: ExitsConfig,
    senders: Vec<SenderRole>,
    sbs: Option<SbsRole>,
    tedg: Option<Arc<QspaceRole>>,
    /// The TLS clients of sender channels with `tls:`, by channel name.
    tls: crate::gateway::SenderTls,
}

impl RoleSet {
    /// Roles over `mqi`: the sender channels `senders` (shown on `board`,
    /// with the channel exits of `exits`), the SBS server `sbs` and the
    /// TEDG queue spaces `tedg`, none running.
    pub(crate) fn new(
        mqi: &Mqi,
        board: &Arc<StatusBoard>,
        exits: &ExitsConfig,
        senders: Vec<SenderChannelDef>,
        sbs: Option<SbsServer>,
        tedg: Option<Arc<QspaceRole>>,
    ) -> RoleSet {
        for def in &senders {
            // Listed (inactive) before it first runs.
            board.add(&def.name, "sender");
        }
        RoleSet {
            mqi: mqi.clone(),
            board: Arc::clone(board),
            exits: exits.clone(),
            senders: senders
                .into_iter()
                .map(|def| SenderRole { def, running: None })
                .collect(),
            sbs: sbs.map(|server| SbsRole::Idle(Box::new(server))),
            tedg,
            tls: Default::default(),
        }
    }

    /// The sender channels connect with the TLS clients of `tls` (by
    /// channel name; one without an entry connects without TLS).
    pub(crate) fn with_tls(mut self, tls: crate::gateway::SenderTls) -> RoleSet {
        self.tls = tls;
        self
    }

    /// The roles, for log lines: `sender channel A.TO.R, SBS server, TEDG
    /// queue spaces BILLING`.
    pub(crate) fn describe(&self) -> String {
        let mut parts = Vec::new();
        for s in &self.senders {
            parts.push(format!("sender channel {}", s.def.name));
        }
        if self.sbs.is_some() {
            parts.push("SBS server".to_string());
        }
        if let Some(t) = &self.tedg {
            let mut text = "TEDG queue spaces".to_string();
            for q in t.qspaces() {
                let _ = write!(text, " {q}");
            }
            parts.push(text);
        }
        parts.join(", ")
    }

    /// Starts every role not running.
    pub(crate) fn activate(&mut self) {
        let tasks = self.mqi.tasks();
        for s in &mut self.senders {
            if s.running.is_some() {
                continue;
            }
            let (tx, rx) = watch::channel(false);
            let channel =
                SenderChannel::new(self.mqi.clone(), Arc::clone(&self.board), s.def.clone())
                    .with_exits(&self.exits)
                    .with_tls(self.tls.get(&s.def.name).cloned());
            let task = tasks.spawn(TaskGroup::Channels, channel.run(rx));
            s.running = Some((tx, task));
        }
        if let Some(SbsRole::Idle(_)) = &self.sbs
            && let Some(SbsRole::Idle(server)) = self.sbs.take()
        {
            let stop = CancellationToken::new();
            let task = tasks.spawn(TaskGroup::Requests, server.serve_until(stop.clone()));
            self.sbs = Some(SbsRole::Serving(stop, task));
        }
        if let Some(t) = &self.tedg {
            t.set_held(true);
        }
    }

    /// Stops every role that runs and returns once they have stopped: the
    /// TEDG refuses its queue spaces at once, the sender channels finish
    /// the batch they are sending, the SBS server the message it serves.
    pub(crate) async fn deactivate(&mut self) {
        if let Some(t) = &self.tedg {
            t.set_held(false);
        }
        let mut senders = Vec::new();
        for s in &mut self.senders {
            if let Some((tx, task)) = s.running.take() {
                tx.send_replace(true);
                senders.push(task);
            }
        }
        let sbs = match self.sbs.take() {
            Some(SbsRole::Serving(stop, task)) => {
                stop.cancel();
                Some(task)
            }
            other => {
                self.sbs = other;
                None
            }
        };
        for task in senders {
            if let Err(e) = task.await {
                tracing::error!(error = %e, "a sender channel of the fault tolerance roles failed");
            }
        }
        if let Some(task) = sbs {
            self.sbs = Some(match task.await {
                Ok(Some(server)) => SbsRole::Idle(Box::new(server)),
                Ok(None) => SbsRole::Gone,
                Err(e) => {
                    tracing::error!(error = %e, "the SBS server of the fault tolerance roles failed");
                    SbsRole::Gone
                }
            });
        }
    }
}
