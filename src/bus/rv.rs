//! Rendezvous subjects between gateways over NATS (docs/cluster.md "The bus
//! between gateways"; docs/rendezvous.md "Gateways on a NATS bus").
//!
//! One task per gateway holds:
//! - an interest watch on the local bus (every listener but its own): the
//!   listen subjects that cross ([`super::peers::crosses`]) are announced on
//!   `<prefix>.rv.interest` when they change, every `interest_refresh_ms`,
//!   and when another gateway says hello (`<prefix>.rv.hello`);
//! - the other gateways' announcements ([`Peers`]) and a bus listener of a
//!   link of its own on the union of their listen subjects and on the
//!   other gateways' inboxes that came here as reply subjects (each for
//!   [`REPLY_TTL`] after the last message that named it, at most
//!   [`MAX_REPLY_INBOXES`], as a routing daemon does, docs/rendezvous.md
//!   "Replies");
//! - a NATS subscription to `<prefix>.rv.msg.<its inbox element>`.
//!
//! A message the bus listener gets is published once to
//! `<prefix>.rv.msg.<gateway>` for each gateway whose interest matches it
//! (an inbox: the gateway that made it), as mqgate's binary form with the
//! header `Mqgate-Origin`. What arrives on its own subject is published on
//! the local bus as from the link, which the bus never hands back to the
//! link's listener: a message crosses once per gateway and never returns.

use super::connect::Link;
use super::peers::{Announcement, Assembler, Changes, Peers, crosses};
use super::status::BusStatus;
use crate::rv::{Bus, BusError, Delivery, LinkId, Listener, ListenerOptions, Origin};
use async_nats::{Client, HeaderMap};
use bytes::Bytes;
use futures_util::StreamExt;
use mqgate_codecs::rv::msg::Envelope;
use mqgate_codecs::rv::{Mode, Subject};
use std::collections::{BTreeSet, HashMap};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;
use tokio::sync::mpsc;

/// The header naming the gateway that put a message on the bus (its inbox
/// element).
pub const ORIGIN_HEADER: &str = "Mqgate-Origin";
/// How long the task waits for NATS to take what it was given when the
/// gateway stops.
const FLUSH_AT_STOP: Duration = Duration::from_secs(2);
/// How long an inbox of another gateway is listened to after the last
/// message that named it as its reply subject.
pub const REPLY_TTL: Duration = Duration::from_secs(600);
/// Most inboxes of other gateways listened to at once; the oldest goes.
pub const MAX_REPLY_INBOXES: usize = 10_000;

/// The NATS subjects of the Rendezvous part of a bus with prefix `p`.
#[derive(Clone, Debug)]
pub struct RvSubjects {
    /// `<p>.rv.interest`: announcements.
    pub interest: String,
    /// `<p>.rv.hello`: a gateway that (re)joins asks for announcements.
    pub hello: String,
    /// `<p>.rv.bye`: a gateway that stops.
    pub bye: String,
    /// `<p>.rv.msg.`: followed by a gateway's inbox element, its messages.
    pub msg: String,
}

impl RvSubjects {
    /// The subjects under prefix `p`.
    pub fn new(p: &str) -> RvSubjects {
        RvSubjects {
            interest: format!("{p}.rv.interest"),
            hello: format!("{p}.rv.hello"),
            bye: format!("{p}.rv.bye"),
            msg: format!("{p}.rv.msg."),
        }
    }
}

/// The Rendezvous part of the bus, in its task.
pub struct RvBus {
    bus: Bus,
    link: LinkId,
    listener: Listener,
    client: Client,
    me: String,
    subjects: RvSubjects,
    peers: Peers,
    /// Listen subjects of local listeners that cross, as last announced.
    local: BTreeSet<String>,
    refresh: Duration,
    /// Other gateways' announcements arriving in parts.
    assembler: Assembler,
    /// The number of this gateway's last announcement.
    generation: u64,
    /// Other gateways' inboxes listened to, with when they were last named.
    replies: HashMap<String, std::time::Instant>,
    status: Arc<BusStatus>,
}

impl RvBus {
    /// Registers the bus listener (with an inbox of its own, which no other
    /// gateway is told of: a listener needs a subject) and makes the task's
    /// state; [`RvBus::run`] serves it.
    ///
    /// Errors: the bus is closed.
    pub fn new(
        bus: &Bus,
        client: Client,
        prefix: &str,
        refresh_ms: u64,
        status: Arc<BusStatus>,
    ) -> Result<RvBus, BusError> {
        let link = bus.new_link();
        let listener = bus.listen_inbox(ListenerOptions {
            name: "bus between gateways".into(),
            queue_len: None,
            link: Some(link),
        })?;
        let me = bus
            .inbox_prefix()
            .trim_start_matches("_INBOX.")
            .trim_end_matches('.')
            .to_string();
        status.set_gateway(&me);
        Ok(RvBus {
            bus: bus.clone(),
            link,
            listener,
            client,
            peers: Peers::new(&me),
            me,
            subjects: RvSubjects::new(prefix),
            local: BTreeSet::new(),
            refresh: Duration::from_millis(refresh_ms),
            assembler: Assembler::default(),
            generation: 0,
            replies: HashMap::new(),
            status,
        })
    }

    /// Serves the bus until the local bus closes; `link` tells of
    /// reconnections.
    pub async fn run(mut self, mut link: mpsc::UnboundedReceiver<Link>) {
        let mut watch = self.bus.watch_interest(Some(self.link));
        let own = format!("{}{}", self.subjects.msg, self.me);
        let subscribed = async {
            Ok::<_, async_nats::SubscribeError>((
                self.client.subscribe(own.clone()).await?,
                self.client
                    .subscribe(self.subjects.interest.clone())
                    .await?,
                self.client.subscribe(self.subjects.hello.clone()).await?,
                self.client.subscribe(self.subjects.bye.clone()).await?,
            ))
        };
        let (mut msgs, mut interest, mut hello, mut bye) = match subscribed.await {
            Ok(s) => s,
            Err(e) => {
                tracing::error!(error = %e, "bus: cannot subscribe on NATS; Rendezvous subjects do not cross");
                return;
            }
        };
        // What is listened to now, then hello: the others announce theirs.
        while let Some(c) = watch.try_next() {
            self.local_change(c.subject.as_str(), c.listening);
        }
        self.announce().await;
        self.publish_text(&self.subjects.hello.clone(), self.me.clone())
            .await;
        tracing::info!(gateway = %self.me, subject = %own, "bus: Rendezvous subjects cross between gateways over NATS");
        let mut tick = tokio::time::interval(self.refresh);
        tick.tick().await;
        loop {
            tokio::select! {
                d = self.listener.recv() => match d {
                    Some(d) => self.carry_out(&d).await,
                    None => break,
                },
                c = watch.next() => match c {
                    Some(c) => {
                        let mut changed = self.local_change(c.subject.as_str(), c.listening);
                        while let Some(c) = watch.try_next() {
                            changed |= self.local_change(c.subject.as_str(), c.listening);
                        }
                        if changed {
                            self.announce().await;
                        }
                    }
                    None => break,
                },
                m = msgs.next() => match m {
                    Some(m) => if !self.bring_in(m) { break },
                    None => break,
                },
                // A subscription or the event channel that ends (the client
                // closed) disables its branch rather than firing again.
                Some(m) = interest.next() => self.announced(&m),
                Some(m) = hello.next() => if m.payload.as_ref() != self.me.as_bytes() {
                    self.announce().await;
                },
                Some(m) = bye.next() => {
                    let gateway = String::from_utf8_lossy(&m.payload).into_owned();
                    if gateway != self.me {
                        let c = self.peers.forget(&gateway);
                        tracing::info!(gateway = %gateway, "bus: a gateway left");
                        self.apply(c);
                    }
                },
                Some(Link::Reconnected) = link.recv() => {
                    self.announce().await;
                    self.publish_text(&self.subjects.hello.clone(), self.me.clone()).await;
                },
                _ = tick.tick() => {
                    self.announce().await;
                    let (gone, c) = self.peers.expire(std::time::Instant::now());
                    for g in gone {
                        tracing::warn!(gateway = %g, "bus: a gateway announced nothing for three intervals; forgotten");
                    }
                    self.apply(c);
                    self.prune_replies();
                }
            }
        }
        self.publish_text(&self.subjects.bye.clone(), self.me.clone())
            .await;
        let _ = tokio::time::timeout(FLUSH_AT_STOP, self.client.flush()).await;
        tracing::info!(
            out = self.status.rv_out.load(Ordering::Relaxed),
            into_bus = self.status.rv_in.load(Ordering::Relaxed),
            refused = self.status.rv_refused.load(Ordering::Relaxed),
            "bus: Rendezvous part stopped"
        );
    }

    /// A local listen subject came or went; true when the announced set
    /// changed.
    fn local_change(&mut self, subject: &str, listening: bool) -> bool {
        let Ok(s) = Subject::parse(subject, Mode::Listen) else {
            return false;
        };
        if !crosses(&s) {
            return false;
        }
        if listening {
            self.local.insert(subject.to_string())
        } else {
            self.local.remove(subject)
        }
    }

    /// Publishes this gateway's interest, in parts when it is long.
    async fn announce(&mut self) {
        self.generation += 1;
        let whole = Announcement {
            gateway: self.me.clone(),
            refresh_ms: self.refresh.as_millis() as u64,
            subjects: self.local.iter().cloned().collect(),
            ..Announcement::default()
        };
        for a in whole.into_parts(self.generation) {
            let body = match serde_json::to_vec(&a) {
                Ok(b) => b,
                Err(e) => {
                    tracing::warn!(error = %e, "bus: interest not announced");
                    return;
                }
            };
            let subject = self.subjects.interest.clone();
            if let Err(e) = self.client.publish(subject, body.into()).await {
                tracing::warn!(error = %e, part = a.part, parts = a.parts, "bus: interest not announced");
                return;
            }
        }
    }

    async fn publish_text(&self, subject: &str, text: String) {
        if let Err(e) = self
            .client
            .publish(subject.to_string(), Bytes::from(text))
            .await
        {
            tracing::warn!(subject = %subject, error = %e, "bus: NATS did not take a control message");
        }
    }

    /// Takes another gateway's announcement.
    fn announced(&mut self, m: &async_nats::Message) {
        let a: Announcement = match serde_json::from_slice(&m.payload) {
            Ok(a) => a,
            Err(e) => {
                tracing::warn!(error = %e, "bus: an interest announcement that is not one; ignored");
                return;
            }
        };
        if a.gateway == self.me {
            return;
        }
        let Some(a) = self.assembler.take(a) else {
            return;
        };
        let known = self.peers.knows(&a.gateway);
        let (c, refused) = self.peers.announce(&a, std::time::Instant::now());
        for r in refused {
            tracing::warn!(gateway = %a.gateway, error = %r, "bus: announced listen subject not taken");
        }
        if !known {
            tracing::info!(gateway = %a.gateway, subjects = a.subjects.len(), "bus: a gateway joined");
        }
        self.apply(c);
    }

    /// Adds and removes the bus listener's subjects after a change of the
    /// other gateways' interest.
    fn apply(&mut self, c: Changes) {
        self.status.set_peers(self.peers.summary());
        for s in c.removed {
            self.listener.remove(&s);
        }
        for s in c.added {
            if let Err(e) = self.listener.add(&s) {
                tracing::warn!(subject = %s, error = %e, "bus: cannot listen on the bus for another gateway");
            }
        }
    }

    /// Sends one local message to the gateways that listen to it.
    async fn carry_out(&mut self, d: &Delivery) {
        if d.subject().starts_with("_RV.") {
            tracing::error!(advisory = %d.subject(), "bus: messages going to other gateways were discarded: NATS did not keep up with the bus");
            return;
        }
        let Ok(subject) = Subject::parse(d.subject(), Mode::Listen) else {
            return;
        };
        let gateways: Vec<String> = self
            .peers
            .destinations(&subject)
            .into_iter()
            .map(str::to_string)
            .collect();
        if gateways.is_empty() {
            return;
        }
        let payload = Bytes::copy_from_slice(d.encoded());
        for g in gateways {
            let mut headers = HeaderMap::new();
            headers.insert(ORIGIN_HEADER, self.me.as_str());
            let to = format!("{}{g}", self.subjects.msg);
            match self
                .client
                .publish_with_headers(to, headers, payload.clone())
                .await
            {
                Ok(()) => count(&self.status.rv_out),
                Err(e) => {
                    count(&self.status.rv_refused);
                    tracing::warn!(subject = %d.subject(), gateway = %g, error = %e, "bus: the NATS client did not take a message for another gateway; lost");
                }
            }
        }
    }

    /// Publishes one message from another gateway on the local bus; false
    /// once the bus is closed.
    fn bring_in(&mut self, m: async_nats::Message) -> bool {
        let origin = m
            .headers
            .as_ref()
            .and_then(|h| h.get(ORIGIN_HEADER))
            .map(|v| v.as_str().to_string())
            .unwrap_or_default();
        if origin == self.me {
            return true;
        }
        let env = match Envelope::decode(&m.payload, self.bus.limits()) {
            Ok(e) => e,
            Err(e) => {
                count(&self.status.rv_refused);
                tracing::warn!(origin = %origin, error = %e, "bus: a message from another gateway is not mqgate's binary form; dropped");
                return true;
            }
        };
        if let Some(r) = &env.reply_subject {
            self.hold_reply_inbox(r);
        }
        let subject = env.subject.clone();
        match self.bus.publish(env, Origin::Link(self.link)) {
            Ok(n) => {
                count(&self.status.rv_in);
                tracing::debug!(subject = %subject, origin = %origin, listeners = n, "bus: message from another gateway");
                true
            }
            Err(BusError::Closed) => false,
            Err(e) => {
                count(&self.status.rv_refused);
                tracing::warn!(subject = %subject, origin = %origin, error = %e, "bus: a message from another gateway refused");
                true
            }
        }
    }

    /// Listens on the local bus to `reply` when it is another gateway's
    /// inbox, so that a reply published here goes back to that gateway.
    fn hold_reply_inbox(&mut self, reply: &str) {
        let Some(g) = super::peers::inbox_gateway(reply) else {
            return;
        };
        if g == self.me {
            return;
        }
        let now = std::time::Instant::now();
        if let Some(t) = self.replies.get_mut(reply) {
            *t = now;
            return;
        }
        if self.replies.len() >= MAX_REPLY_INBOXES
            && let Some(oldest) = self
                .replies
                .iter()
                .min_by_key(|(_, t)| **t)
                .map(|(k, _)| k.clone())
        {
            self.replies.remove(&oldest);
            self.listener.remove(&oldest);
        }
        match self.listener.add(reply) {
            Ok(_) => {
                self.replies.insert(reply.to_string(), now);
            }
            Err(e) => {
                tracing::warn!(reply_subject = %reply, error = %e, "bus: cannot listen to another gateway's inbox; a reply will not cross")
            }
        }
    }

    /// Stops listening to the inboxes not named for [`REPLY_TTL`].
    fn prune_replies(&mut self) {
        let now = std::time::Instant::now();
        let listener = &self.listener;
        self.replies.retain(|inbox, last| {
            let keep = now.duration_since(*last) < REPLY_TTL;
            if !keep {
                listener.remove(inbox);
            }
            keep
        });
    }
}

/// One more.
fn count(c: &AtomicU64) {
    c.fetch_add(1, Ordering::Relaxed);
}
