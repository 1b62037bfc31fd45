//! The gateway's outbound channels — sender channels and mq-client
//! channels, those that are not fault tolerance roles — each with a stop of
//! its own besides the gateway's, so that a configuration reload
//! (docs/operations.md "Reloading the configuration") starts a new one,
//! stops a removed one and restarts a changed one without touching the
//! others. A channel asked to stop ends after its current batch is
//! confirmed; a batch in doubt stays recorded in the store and is settled
//! by the channel of that name the next time it connects (IBM MQ "Channel
//! states", "In-doubt channels").

use crate::channel::StatusBoard;
use crate::channel::mq_client::MqClientChannel;
use crate::channel::sender_channel::SenderChannel;
use crate::config::ChannelDef;
use crate::mqi::Mqi;
use crate::tasks::TaskGroup;
use mqgate_exits::ExitsConfig;
use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use tokio::sync::watch;
use tokio::task::JoinHandle;

/// The running outbound channels by name.
pub(super) struct Outbound {
    mqi: Mqi,
    board: Arc<StatusBoard>,
    /// Replaced by [`Outbound::redefine`] when a reload changes `exits:`.
    exits: Mutex<ExitsConfig>,
    /// The gateway's stop: every channel stops with it.
    stop: watch::Receiver<bool>,
    running: Mutex<HashMap<String, Run>>,
    /// Where a channel's TLS client registers for certificate reloads.
    tls: crate::security::tls::TlsEndpoints,
    /// The TLS clients made at the start, taken by [`Outbound::start`];
    /// a reload makes new ones.
    started_tls: Mutex<super::SenderTls>,
}

/// One running channel.
struct Run {
    def: ChannelDef,
    /// Asks this channel alone to stop.
    stop: watch::Sender<bool>,
    /// Its task; `None` once taken by a restart.
    task: Option<JoinHandle<Option<()>>>,
}

impl Outbound {
    pub(super) fn new(
        mqi: &Mqi,
        board: &Arc<StatusBoard>,
        exits: &ExitsConfig,
        stop: &watch::Receiver<bool>,
        (tls, started_tls): (&crate::security::tls::TlsEndpoints, super::SenderTls),
    ) -> Outbound {
        Outbound {
            mqi: mqi.clone(),
            board: Arc::clone(board),
            exits: Mutex::new(exits.clone()),
            stop: stop.clone(),
            running: Mutex::new(HashMap::new()),
            tls: tls.clone(),
            started_tls: Mutex::new(started_tls),
        }
    }

    fn running(&self) -> std::sync::MutexGuard<'_, HashMap<String, Run>> {
        self.running.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Starts channel `def` (a receiver channel is not outbound: ignored).
    pub(super) fn start(&self, def: &ChannelDef) {
        let tls = self
            .started_tls
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .remove(def.name());
        let run = self.spawn(def, None, Some(tls));
        if let Some(run) = run {
            self.running().insert(def.name().to_string(), run);
        }
    }

    /// Spawns channel `def` once `before` (the task of the channel it
    /// replaces) has ended, with TLS client `tls` (made from `def` when
    /// `None`). A channel whose `tls:` files cannot be used is not started
    /// (logged at ERROR): it never falls back to plain TCP.
    fn spawn(
        &self,
        def: &ChannelDef,
        before: Option<JoinHandle<Option<()>>>,
        tls: Option<Option<Arc<crate::security::tls::TlsClient>>>,
    ) -> Option<Run> {
        let tls = match tls {
            Some(t) => t,
            None => {
                let setting = match def {
                    ChannelDef::Sender(d) => d.tls.as_ref(),
                    ChannelDef::MqClient(d) => d.tls.as_ref(),
                    ChannelDef::Receiver(_) => None,
                };
                match setting {
                    None => None,
                    Some(t) => {
                        let name = format!("channel {} tls", def.name());
                        match crate::security::tls::TlsClient::new(&name, t, &self.tls) {
                            Ok(c) => Some(c),
                            Err(e) => {
                                tracing::error!(channel = %def.name(), error = %e,
                                    "channel not started: its TLS files cannot be used");
                                return None;
                            }
                        }
                    }
                }
            }
        };
        let (tx, rx) = watch::channel(false);
        let exits = self.exits.lock().unwrap_or_else(|p| p.into_inner()).clone();
        let channel: std::pin::Pin<Box<dyn std::future::Future<Output = ()> + Send>> = match def {
            ChannelDef::Sender(d) => Box::pin(
                SenderChannel::new(self.mqi.clone(), Arc::clone(&self.board), d.clone())
                    .with_exits(&exits)
                    .with_tls(tls)
                    .run(rx),
            ),
            ChannelDef::MqClient(d) => Box::pin(
                MqClientChannel::new(self.mqi.clone(), Arc::clone(&self.board), d.clone())
                    .with_exits(&exits)
                    .with_tls(tls)
                    .run(rx),
            ),
            ChannelDef::Receiver(_) => return None,
        };
        let tasks = self.mqi.tasks();
        // The gateway's stop reaches the channel through its own stop.
        let mut gateway_stop = self.stop.clone();
        let forward = tx.clone();
        tasks.spawn(TaskGroup::Channels, async move {
            tokio::select! {
                _ = crate::channel::stopped(&mut gateway_stop) => { forward.send_replace(true); }
                _ = forward.closed() => {}
            }
        });
        let task = tasks.spawn(TaskGroup::Channels, async move {
            if let Some(before) = before {
                let _ = before.await;
            }
            channel.await;
        });
        Some(Run {
            def: def.clone(),
            stop: tx,
            task: Some(task),
        })
    }

    /// Moves the running channels to `defs` (outbound ones only, fault
    /// tolerance roles left out by the caller) and, when `exits` is given
    /// (the `exits:` section changed), to those exits, which restarts every
    /// channel: (started, stopped, restarted) channel names. A changed
    /// channel starts again once its old instance has ended.
    pub(super) fn redefine(
        &self,
        defs: &[ChannelDef],
        exits: Option<&ExitsConfig>,
    ) -> (Vec<String>, Vec<String>, Vec<String>) {
        if let Some(e) = exits {
            *self.exits.lock().unwrap_or_else(|p| p.into_inner()) = e.clone();
        }
        let (mut started, mut stopped, mut restarted) = (Vec::new(), Vec::new(), Vec::new());
        let mut running = self.running();
        let names: Vec<String> = running.keys().cloned().collect();
        for name in names {
            if !defs.iter().any(|d| d.name() == name)
                && let Some(run) = running.remove(&name)
            {
                run.stop.send_replace(true);
                stopped.push(name);
            }
        }
        for def in defs {
            let name = def.name().to_string();
            match running.get_mut(&name) {
                Some(run) if exits.is_none() && format!("{:?}", run.def) == format!("{def:?}") => {}
                Some(run) => {
                    run.stop.send_replace(true);
                    let before = run.task.take();
                    if let Some(new) = self.spawn(def, before, None) {
                        *run = new;
                        restarted.push(name);
                    }
                }
                None => {
                    if let Some(new) = self.spawn(def, None, None) {
                        running.insert(name.clone(), new);
                        started.push(name);
                    }
                }
            }
        }
        (started, stopped, restarted)
    }
}
