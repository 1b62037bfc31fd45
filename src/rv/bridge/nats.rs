//! The bridge to a nats-server (docs/rendezvous.md "Bridge to NATS"): one
//! task holding a bus listener on `rv.nats.subjects` (a link listener, so
//! it never gets `_RV.` or `_LOCAL.` subjects nor the messages it brought
//! in itself) and one NATS connection subscribed to the same subjects and
//! to this gateway's inboxes.
//!
//! - Bus to NATS: each message is published on NATS with its JSON form and
//!   the headers of [`super::nats_map`]; its reply subject goes along, so a
//!   reply published on NATS to one of this gateway's inboxes comes back.
//! - NATS to bus: each message is published on the bus as from a link
//!   ([`Origin::Link`]). When it carries a NATS reply inbox, the bridge
//!   listens to that inbox on the bus until its first reply or
//!   `rv.nats.reply_ttl_ms`, and carries the reply back to NATS.
//! - Loops: the connection is made with `no_echo` (nats-server does not
//!   deliver a connection's own publishes to its subscriptions), messages
//!   carry the origin header, and the bus never hands a link's own
//!   messages back to its listener.
//! - Refusals ([`super::nats_map::Refusal`]) are logged, counted and
//!   published as the advisory `_RV.WARN.SYSTEM.BRIDGE.NATS.REFUSED`.
//! - Reconnects are async-nats's: retried without end, subscriptions
//!   restored by the client. A reload that reads new `rv.nats.tls` files
//!   moves the bridge to a new connection made with them (messages
//!   published on NATS in the instant of the move may be missed or
//!   received twice: NATS core delivers at most once per connection).

use std::collections::HashMap;
use std::sync::Arc;
use std::time::Duration;

use async_nats::HeaderMap;
use bytes::Bytes;
use futures_util::StreamExt;
use mqgate_codecs::rv::msg::Value as RvValue;
use tokio::time::Instant;

use super::config::NatsConfig;
use super::nats_map::{Direction, FORM_HEADER, ORIGIN_HEADER, Refusal, from_nats, to_nats};
use crate::rv::advisory::{Advisory, AdvisoryClass, SOURCE_SYSTEM};
use crate::rv::{Bus, BusError, Delivery, LinkId, Listener, ListenerOptions, Origin};
use crate::security::tls::{TlsClient, TlsEndpoints};

/// The name of the refusal advisory after `_RV.WARN.SYSTEM.`.
pub const REFUSED_ADVISORY: &str = "BRIDGE.NATS.REFUSED";
/// Most NATS reply inboxes held open on the bus at once.
const MAX_REPLY_INBOXES: usize = 65_536;
/// How long the bridge waits for NATS to take what it was given when the
/// gateway stops.
const FLUSH_AT_STOP: Duration = Duration::from_secs(2);

/// The bridge's state in its task.
struct NatsBridge {
    bus: Bus,
    link: LinkId,
    listener: Listener,
    /// The element after `_INBOX.` of this gateway's inboxes: the origin
    /// header's value.
    origin: String,
    /// `_INBOX.<origin>.`.
    inbox_prefix: String,
    /// NATS reply inboxes the bus listener holds, with their expiry.
    replies: HashMap<String, Instant>,
    reply_ttl: Duration,
    refused: u64,
}

/// Registers the bus listener now (so what is published after the gateway
/// started crosses) and spawns the bridge in `tasks`. Its `rv.nats.tls`
/// client is registered in `endpoints`, so a reload reads its files again
/// ([`crate::security::tls::reload_certificates`]).
pub(super) fn start(
    bus: &Bus,
    config: &NatsConfig,
    tasks: &crate::tasks::Tasks,
    endpoints: &TlsEndpoints,
) {
    let tls = match &config.tls {
        None => None,
        Some(t) => match TlsClient::new("rv.nats.tls", t, endpoints) {
            Ok(c) => Some(c),
            Err(e) => {
                tracing::error!(url = %config.url, error = %e, "NATS bridge: rv.nats.tls cannot be used; not started");
                return;
            }
        },
    };
    let link = bus.new_link();
    let subjects: Vec<&str> = config.subjects.iter().map(String::as_str).collect();
    let listener = match bus.listen(
        &subjects,
        ListenerOptions {
            name: format!("bridge to NATS {}", config.url),
            queue_len: None,
            link: Some(link),
        },
    ) {
        Ok(l) => l,
        Err(e) => {
            tracing::error!(error = %e, "NATS bridge cannot listen on the bus; not started");
            return;
        }
    };
    let inbox_prefix = bus.inbox_prefix().to_string();
    let origin = inbox_prefix
        .trim_start_matches("_INBOX.")
        .trim_end_matches('.')
        .to_string();
    let bridge = NatsBridge {
        bus: bus.clone(),
        link,
        listener,
        origin,
        inbox_prefix,
        replies: HashMap::new(),
        reply_ttl: Duration::from_millis(config.reply_ttl_ms),
        refused: 0,
    };
    tasks.spawn(
        crate::tasks::TaskGroup::Requests,
        bridge.run(config.clone(), tls),
    );
}

/// A NATS connection of the bridge and its subscriptions, merged.
type Connection = (
    async_nats::Client,
    futures_util::stream::SelectAll<async_nats::Subscriber>,
);

impl NatsBridge {
    /// Connects to NATS with rustls configuration `tls` (none: TLS only
    /// when the URL or the server asks for it) and subscribes to the
    /// bridge's subjects and inboxes; `None`, logged, when it cannot.
    async fn connect(
        &self,
        config: &NatsConfig,
        tls: Option<&rustls::ClientConfig>,
    ) -> Option<Connection> {
        let url = config.url.clone();
        let events_url = url.clone();
        let mut options = async_nats::ConnectOptions::new();
        if let Some(c) = tls {
            options = options.require_tls(true).tls_client_config(c.clone());
        }
        let client = match options
            .name(&config.name)
            .no_echo()
            .retry_on_initial_connect()
            .max_reconnects(None)
            .event_callback(move |event| {
                let url = events_url.clone();
                async move {
                    match event {
                        async_nats::Event::Connected => {
                            tracing::info!(url = %url, "NATS bridge connected")
                        }
                        async_nats::Event::Disconnected => tracing::warn!(
                            url = %url,
                            "NATS bridge disconnected; reconnecting (messages on NATS meanwhile are not received)"
                        ),
                        other => tracing::warn!(url = %url, event = %other, "NATS bridge"),
                    }
                }
            })
            .connect(config.servers())
            .await
        {
            Ok(c) => c,
            Err(e) => {
                tracing::error!(url = %url, error = %e, "NATS bridge cannot connect");
                return None;
            }
        };
        let mut nats_subjects = config.subjects.clone();
        nats_subjects.push(format!("{}>", self.inbox_prefix));
        let mut subscriptions = Vec::with_capacity(nats_subjects.len());
        for s in &nats_subjects {
            match client.subscribe(s.clone()).await {
                Ok(sub) => subscriptions.push(sub),
                Err(e) => {
                    tracing::error!(url = %url, subject = %s, error = %e, "NATS bridge cannot subscribe");
                    return None;
                }
            }
        }
        Some((client, futures_util::stream::select_all(subscriptions)))
    }

    /// Runs the bridge until the bus closes. With `tls`, each second it
    /// looks whether a reload replaced the rustls configuration (new
    /// certificate files read) and then moves to a new connection made
    /// with it, as every other outbound TLS connection takes the new
    /// files for its next connection (docs/security.md "Reloading
    /// certificates").
    async fn run(mut self, config: NatsConfig, tls: Option<Arc<TlsClient>>) {
        let url = config.url.clone();
        let mut in_use = tls.as_ref().map(|t| t.client_config());
        let Some((mut client, mut incoming)) = self.connect(&config, in_use.as_deref()).await
        else {
            tracing::error!(url = %url, "NATS bridge not started");
            return;
        };
        tracing::info!(url = %url, subjects = ?config.subjects, "NATS bridge started");
        let mut prune = tokio::time::interval(Duration::from_secs(1));
        loop {
            tokio::select! {
                d = self.listener.recv() => match d {
                    Some(d) => self.carry_out(&client, &d).await,
                    None => break,
                },
                m = incoming.next() => match m {
                    Some(m) => if !self.bring_in(m) { break },
                    None => break,
                },
                _ = prune.tick() => {
                    self.prune();
                    let now = tls.as_ref().map(|t| t.client_config());
                    let replaced = matches!((&now, &in_use), (Some(a), Some(b)) if !Arc::ptr_eq(a, b));
                    if replaced {
                        in_use = now;
                        match self.connect(&config, in_use.as_deref()).await {
                            Some((c, i)) => {
                                let _ = tokio::time::timeout(FLUSH_AT_STOP, client.flush()).await;
                                (client, incoming) = (c, i);
                                tracing::info!(url = %url, "NATS bridge moved to a new connection with the reloaded rv.nats.tls certificates");
                            }
                            None => tracing::error!(url = %url, "NATS bridge keeps its connection with the old rv.nats.tls certificates"),
                        }
                    }
                }
            }
        }
        let _ = tokio::time::timeout(FLUSH_AT_STOP, client.flush()).await;
        tracing::info!(url = %url, refused = self.refused, "NATS bridge stopped");
    }

    /// Carries one bus message to NATS.
    async fn carry_out(&mut self, client: &async_nats::Client, d: &Delivery) {
        if d.subject().starts_with("_RV.") {
            tracing::error!(advisory = %d.subject(), "messages going to NATS were discarded: NATS did not keep up with the bus");
            return;
        }
        let out = match to_nats(d.envelope(), d.json()) {
            Ok(o) => o,
            Err(r) => return self.refuse(r),
        };
        if self.replies.remove(&out.subject).is_some() {
            // A reply to a NATS request: its inbox has served.
            self.listener.remove(&out.subject);
        }
        let mut headers = HeaderMap::new();
        headers.insert(FORM_HEADER, "json");
        headers.insert(ORIGIN_HEADER, self.origin.as_str());
        let payload = Bytes::from(out.payload);
        let sent = match out.reply {
            Some(reply) => {
                client
                    .publish_with_reply_and_headers(out.subject.clone(), reply, headers, payload)
                    .await
            }
            None => {
                client
                    .publish_with_headers(out.subject.clone(), headers, payload)
                    .await
            }
        };
        match sent {
            Ok(()) => tracing::debug!(subject = %out.subject, "bus message bridged to NATS"),
            // Larger than the server's max_payload, or the client closed.
            Err(e) => self.refuse(Refusal {
                subject: out.subject,
                direction: Direction::ToNats,
                reason: format!("the NATS client did not take it: {e}"),
            }),
        }
    }

    /// Brings one NATS message to the bus; false once the bus is closed.
    fn bring_in(&mut self, m: async_nats::Message) -> bool {
        let header = |name: &str| {
            m.headers
                .as_ref()
                .and_then(|h| h.get(name))
                .map(|v| v.as_str().to_string())
        };
        if header(ORIGIN_HEADER).as_deref() == Some(self.origin.as_str()) {
            tracing::debug!(subject = %m.subject, "NATS message this gateway published itself; not brought back");
            return true;
        }
        let json_form = header(FORM_HEADER).as_deref() == Some("json");
        let inbox_ok = m.subject.as_str().starts_with(&self.inbox_prefix);
        let reply = m.reply.as_ref().map(|r| r.as_str().to_string());
        let env = match from_nats(
            m.subject.as_str(),
            reply.as_deref(),
            json_form,
            &m.payload,
            inbox_ok,
        ) {
            Ok(e) => e,
            Err(r) => {
                self.refuse(r);
                return true;
            }
        };
        if let Some(r) = &env.reply_subject {
            self.hold_reply_inbox(r);
        }
        let subject = env.subject.clone();
        match self.bus.publish(env, Origin::Link(self.link)) {
            Ok(n) => {
                tracing::debug!(subject = %subject, listeners = n, "NATS message bridged to the bus");
                true
            }
            Err(BusError::Closed) => false,
            Err(e) => {
                self.refuse(Refusal {
                    subject,
                    direction: Direction::FromNats,
                    reason: e.to_string(),
                });
                true
            }
        }
    }

    /// Listens on the bus to NATS reply inbox `reply` (not one of this
    /// gateway's) until its first reply or the reply time-to-live.
    fn hold_reply_inbox(&mut self, reply: &str) {
        if !reply.starts_with("_INBOX.") || reply.starts_with(&self.inbox_prefix) {
            return;
        }
        if self.replies.len() >= MAX_REPLY_INBOXES && !self.replies.contains_key(reply) {
            tracing::warn!(reply_subject = %reply, held = self.replies.len(), "NATS bridge holds too many reply inboxes; a reply to this request will not cross");
            return;
        }
        match self.listener.add(reply) {
            Ok(_) => {
                self.replies
                    .insert(reply.to_string(), Instant::now() + self.reply_ttl);
            }
            Err(e) => {
                tracing::warn!(reply_subject = %reply, error = %e, "NATS bridge cannot listen to a reply inbox")
            }
        }
    }

    /// Closes the reply inboxes whose time is up.
    fn prune(&mut self) {
        let now = Instant::now();
        let listener = &self.listener;
        self.replies.retain(|inbox, until| {
            let keep = *until > now;
            if !keep {
                listener.remove(inbox);
            }
            keep
        });
    }

    /// Logs, counts and advertises a message that could not cross.
    fn refuse(&mut self, r: Refusal) {
        self.refused += 1;
        tracing::warn!(subject = %r.subject, direction = r.direction.as_str(), reason = %r.reason, refused = self.refused, "NATS bridge refused a message");
        let advisory = Advisory::new(AdvisoryClass::Warn, SOURCE_SYSTEM, REFUSED_ADVISORY)
            .with_description(r.to_string())
            .with_field("subject", RvValue::String(r.subject))
            .with_field(
                "direction",
                RvValue::String(r.direction.as_str().to_string()),
            )
            .with_field("reason", RvValue::String(r.reason))
            .with_field("refused", RvValue::U64(self.refused));
        let _ = self.bus.publish_advisory(advisory);
    }
}
