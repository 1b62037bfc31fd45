//! The SBS server task: reads queue 99 of the group through the queue
//! interface (src/mqi/), hands each message to [`Core`], and puts what it
//! decided — replies, gap notices, broadcast copies — back through it. Each
//! message is taken in a unit of work: a request's replies (and, with
//! durable registrations, the registrations record) commit with its get, so
//! a request is served exactly once across a crash; a broadcast's get
//! commits before its copies go out, since broadcasts are not recoverable
//! ("Broadcast messages cannot be stored for automatic recovery", BEA
//! MessageQ Programmer's Guide, "Broadcasting Messages"). A
//! broadcast is copied with one destination-list put where each target
//! queue succeeds or fails on its own ([`Mqi::put_many_each`], IBM MQ
//! "Distribution lists" with response records): a queue over its quota
//! loses its copy and the others still get theirs (BEA MessageQ
//! Programmer's Guide, "Broadcasting Messages": "There is no queuing on a
//! broadcast stream, nor is the stream subject to flow control"). A
//! broadcast to a universal MOT that no other server forwarded is also sent
//! once to the SBS server of every other group of the bus, which distributes
//! it by its own registrations only (docs/messageq.md "Between groups").

use super::attach::Attachments;
use super::bus::{Arrival, Sequences};
use super::durable;
use super::group::GroupQueues;
use super::logic::{BroadcastPlan, BroadcastRoute, Core, PamsOut};
use crate::mqi::{
    DeadLetter, GetMode, GetRequest, GetResult, Mqi, Object, Outgoing, PutOptions, QmError,
};
use bytes::Bytes;
use mqgate_codecs::mq::constants::per;
use mqgate_codecs::mq::{CharField, Charset, Mqmd, Mqrc};
use mqgate_codecs::pams::address::{MotKind, is_mot};
use mqgate_codecs::pams::envelope::{FORMAT, MQ_ENCODING};
use mqgate_codecs::pams::{Mot, PamsHeader, QAddress};
use std::collections::HashMap;
use std::sync::Arc;
use std::time::Duration;
use tokio_util::sync::CancellationToken;

/// How long one get on queue 99 waits before it is issued again.
const GET_WAIT: Duration = Duration::from_secs(60);
/// The pause after a get failed for another reason than no message or a
/// stopping queue manager.
const RETRY_PAUSE: Duration = Duration::from_secs(1);

/// Where the SBS server hands the universal broadcasts it forwards when
/// the gateway has a bus (`bus:`, docs/cluster.md "The bus between
/// gateways"): each one message, published once to every other gateway.
#[derive(Clone, Debug)]
pub struct UniversalOut(tokio::sync::mpsc::Sender<Bytes>);

impl UniversalOut {
    /// Hands broadcasts to `tx` (the bus task's queue).
    #[cfg_attr(not(feature = "nats"), allow(dead_code))]
    pub fn new(tx: tokio::sync::mpsc::Sender<Bytes>) -> Self {
        UniversalOut(tx)
    }
}

/// The number [`Sequences`] counts broadcasts to the bus under, in place
/// of a destination group: one stream per MOT to all gateways of the bus.
const BUS_STREAM: u16 = 0;

/// The SBS server of one group.
pub struct SbsServer {
    mqi: Mqi,
    queues: Arc<GroupQueues>,
    core: Core,
    objects: HashMap<(String, String), Object>,
    /// Sequence numbers of the universal broadcasts forwarded between groups.
    seqs: Sequences,
    attachments: Arc<Attachments>,
    /// `messageq.durable_registrations`.
    durable: bool,
    /// The durable registrations were read back (once per server).
    restored: bool,
    /// With a bus, universal broadcasts go there instead of to the groups'
    /// SBS servers over channels.
    universal: Option<UniversalOut>,
}

/// The MQMD of a PAMS message: Format MQGPAMS, Encoding 273 (the header's
/// order), priority from the PAMS priority (0-99 → 0-9, tens), persistence
/// as the target queue defines it.
pub fn pams_md(header: &PamsHeader) -> Mqmd {
    Mqmd {
        format: CharField::new(FORMAT, Charset::Ascii).unwrap_or_default(),
        encoding: MQ_ENCODING,
        priority: header.priority.clamp(0, 99) / 10,
        persistence: per::PERSISTENCE_AS_Q_DEF,
        ..Mqmd::default()
    }
}

fn outgoing(header: &PamsHeader, data: Bytes) -> Outgoing {
    Outgoing {
        md: pams_md(header),
        charset: Charset::Ascii,
        data,
    }
}

impl SbsServer {
    /// A server for the group of `queues`, without registrations (with
    /// `durable`, those of the store are read when it starts). Registrations
    /// made with `auto_dereg` or for a temporary queue are owned by the
    /// queue's attachment in `attachments` and end with it.
    pub fn new(
        mqi: Mqi,
        queues: Arc<GroupQueues>,
        attachments: Arc<Attachments>,
        durable: bool,
    ) -> Self {
        let owners = Arc::clone(&attachments);
        SbsServer {
            mqi,
            core: Core::new(Arc::clone(&queues))
                .with_owners(Box::new(move |q, auto| owners.registration_owner(q, auto))),
            queues,
            objects: HashMap::new(),
            seqs: Sequences::new(),
            attachments,
            durable,
            restored: false,
            universal: None,
        }
    }

    /// Forwards universal broadcasts over the bus between gateways
    /// (docs/cluster.md "The bus between gateways") instead of to the SBS
    /// server of each group of `%XGROUP` and `messageq.groups`.
    pub fn with_universal(mut self, out: UniversalOut) -> Self {
        self.universal = Some(out);
        self
    }

    /// Reads the durable registrations back (a damaged record is logged and
    /// left as it is; the server starts without registrations).
    async fn restore(&mut self) {
        let record = match self.mqi.meta(durable::RECORD).await {
            Ok(Some(r)) => r,
            Ok(None) => return,
            Err(e) => {
                tracing::error!(mqrc = e.mqrc.0, error = %e.message, "durable SBS registrations cannot be read; starting without them");
                return;
            }
        };
        match durable::decode(&record) {
            Ok(regs) => {
                let n = regs.len();
                for r in regs {
                    let id = r.reg_id;
                    if let Err(s) = self.core.registry.restore(r) {
                        tracing::warn!(reg_id = id, status = %s, "durable SBS registration not restored");
                    }
                }
                tracing::info!(registrations = n, "durable SBS registrations restored");
            }
            Err(e) => {
                tracing::error!(record = durable::RECORD, error = %e, "durable SBS registrations record is damaged; starting without them (the record is kept until the next change)");
            }
        }
    }

    /// The durable record of the registrations no attachment owns
    /// ([`durable::encode`]); a registration that cannot be written is
    /// logged and left out.
    fn record(&self) -> Vec<u8> {
        let (record, skipped) = durable::encode(self.core.registry.unowned());
        for s in skipped {
            tracing::warn!(error = %s, "SBS registration not kept durably");
        }
        record
    }

    /// Removes the registrations of attachments that ended since the last
    /// message (src/sbs/attach.rs).
    fn departures(&mut self) {
        let gone = self.attachments.take_departed();
        if gone.is_empty() {
            return;
        }
        for r in self.core.registry.remove_owned(&gone) {
            tracing::info!(reg_id = r.reg_id, mot = r.mot.number(), queue = %r.queue, "SBS registration removed: its attachment ended");
        }
    }

    /// Serves queue 99 until the queue manager stops (2161 / 2162).
    /// [`SbsServer::serve_until`] without a stop of its own.
    pub async fn run(self) {
        self.serve_until(CancellationToken::new()).await;
    }

    /// Serves queue 99 until the queue manager stops (2161 / 2162) or
    /// `stop` is cancelled, then returns the server with its registrations,
    /// so that it can serve again later (a fault tolerance role that is
    /// deactivated and activated again, docs/rendezvous.md "mqgate's own
    /// roles"). Each message is taken in a unit of work that also holds
    /// what the server puts for it (replies, a dead-letter, a message
    /// passed to another group's server) and, with durable registrations,
    /// the registrations it changed: a persistent request is served
    /// exactly once even when the gateway is killed while serving it (IBM
    /// MQ "Units of work"; docs/messageq.md "Durable registrations"). A
    /// stop while a message is being served takes effect once it is
    /// served; a stop while the get waits backs the empty unit out.
    pub async fn serve_until(mut self, stop: CancellationToken) -> Self {
        let name = self.queues.sbs_queue();
        let obj = match self.mqi.open(&name, "") {
            Ok(o) => o,
            Err(e) => {
                tracing::error!(queue = %name, mqrc = e.mqrc.0, error = %e.message, "SBS server cannot open its queue; not started");
                return self;
            }
        };
        if self.durable && !self.restored {
            self.restore().await;
            self.restored = true;
        }
        tracing::info!(queue = %name, group = self.queues.group(), durable = self.durable, "SBS server started");
        while !stop.is_cancelled() {
            let uow = match self.mqi.begin(None) {
                Ok(u) => u,
                Err(e) if stopping(e.mqrc) => break,
                Err(e) => {
                    tracing::warn!(queue = %name, mqrc = e.mqrc.0, error = %e.message, "SBS server cannot begin a unit of work");
                    tokio::select! {
                        () = tokio::time::sleep(RETRY_PAUSE) => {}
                        () = stop.cancelled() => break,
                    }
                    continue;
                }
            };
            let req = GetRequest {
                wait: GET_WAIT,
                max_wait: GET_WAIT,
                ..GetRequest::default()
            };
            let got = tokio::select! {
                got = self.mqi.get(&obj, req, GetMode::Destructive { uow: Some(uow) }) => got,
                () = stop.cancelled() => {
                    // Whatever the dropped get may have taken returns.
                    let _ = self.mqi.backout(uow).await;
                    break;
                }
            };
            match got {
                Ok(got) => self.serve(got.message, uow).await,
                Err(e) => {
                    // Nothing was taken: the unit holds nothing to undo.
                    let _ = self.mqi.backout(uow).await;
                    if e.mqrc == Mqrc::NO_MSG_AVAILABLE {
                        continue;
                    }
                    if stopping(e.mqrc) {
                        break;
                    }
                    tracing::warn!(queue = %name, mqrc = e.mqrc.0, error = %e.message, "SBS server get failed");
                    tokio::select! {
                        () = tokio::time::sleep(RETRY_PAUSE) => {}
                        () = stop.cancelled() => break,
                    }
                }
            }
        }
        tracing::info!(queue = %name, "SBS server stopped");
        self
    }

    /// One message of queue 99, taken under unit of work `uow`: a broadcast
    /// (its original target is a MOT) or a request. Ends `uow`.
    async fn serve(&mut self, m: GetResult, uow: u64) {
        self.departures();
        let format = m.md.format.text(m.charset);
        if format != FORMAT {
            let error = format!(
                "MQMD Format {format:?}: the SBS server reads PAMS messages (Format {FORMAT}, docs/messageq.md)"
            );
            self.dead_letter(&m, Mqrc::FORMAT_ERROR, &error, uow).await;
            self.commit(&m, uow, None).await;
            return;
        }
        let data = m.data.clone();
        let (header, area) = match PamsHeader::split(&data) {
            Ok(x) => x,
            Err(e) => {
                self.dead_letter(&m, Mqrc::HEADER_ERROR, &e.to_string(), uow)
                    .await;
                self.commit(&m, uow, None).await;
                return;
            }
        };
        if !is_mot(header.original_target.queue) {
            return self.request(&m, &header, area, uow).await;
        }
        match self.core.route_broadcast(&header) {
            Err(r) => {
                tracing::warn!(
                    msg_id = %hex::encode_upper(m.md.msg_id),
                    target = %header.original_target,
                    source = %header.source,
                    forwarded_by = %header.forwarded_by,
                    error = %r.error,
                    "broadcast refused"
                );
                self.dead_letter(&m, r.reason, &r.error, uow).await;
                self.commit(&m, uow, None).await;
            }
            Ok(BroadcastRoute::Pass(server)) => {
                self.pass(&m, &header, server, uow).await;
                self.commit(&m, uow, None).await;
            }
            Ok(BroadcastRoute::Here(mot)) => {
                // Broadcasts are not recoverable ("Broadcast messages cannot
                // be stored for automatic recovery", Programmer's Guide,
                // "Broadcasting Messages"): the get is committed before the
                // copies go out, and a crash meanwhile loses them.
                if self.commit(&m, uow, None).await {
                    self.broadcast(&m, mot, &header, &data, area.len()).await;
                }
            }
        }
    }

    /// Commits `uow`, the unit of work of message `m`, with the durable
    /// registrations record `record` when given, in one store transaction.
    /// A commit that fails is logged; the unit was backed out, so `m` is
    /// back on queue 99 and is served again. Returns whether it committed.
    async fn commit(&self, m: &GetResult, uow: u64, record: Option<Vec<u8>>) -> bool {
        let result = match record {
            None => self.mqi.commit(uow).await,
            Some(r) => {
                let mqi = self.mqi.clone();
                Mqi::blocking(move || {
                    mqi.commit_with_meta_now(uow, vec![(durable::RECORD.to_string(), r)])
                })
                .await
            }
        };
        match result {
            Ok(()) => true,
            Err(e) => {
                tracing::error!(
                    msg_id = %hex::encode_upper(m.md.msg_id),
                    queue = %m.queue,
                    mqrc = e.mqrc.0,
                    error = %e.message,
                    "SBS server could not commit a message's unit of work: the message is back on its queue and is served again"
                );
                // A store that fails now likely fails again at once.
                tokio::time::sleep(RETRY_PAUSE).await;
                false
            }
        }
    }

    /// Serves the request in `header` and `area`: its replies are put in
    /// `uow`, which commits with the registrations record when durable and
    /// the request changed them. When the unit does not commit, the
    /// request's changes are undone (it is served again).
    async fn request(&mut self, m: &GetResult, header: &PamsHeader, area: &[u8], uow: u64) {
        self.core.registry.begin_request();
        let before = self.core.registry.changes();
        let handled = self.core.handle_request(header, area);
        if let Some(error) = &handled.error {
            tracing::warn!(
                msg_id = %hex::encode_upper(m.md.msg_id),
                queue = %m.queue,
                class = header.class,
                msg_type = header.msg_type,
                source = %header.source,
                error = %error,
                "SBS request refused"
            );
        }
        if let Some(reason) = handled.dead_letter {
            let error = handled.error.clone().unwrap_or_default();
            self.dead_letter(m, reason, &error, uow).await;
        }
        // A reply takes the persistence of its request (IBM MQ "Persistence
        // (MQLONG)"): one to a persistent request is stored with it, one to
        // a non-persistent request can go to a temporary queue.
        for out in handled.replies {
            let to = out.to;
            if let Err(e) = self.send_as(out, Some(uow), m.md.persistence).await {
                tracing::warn!(to = %to, mqrc = e.mqrc.0, error = %e.message, "SBS reply not delivered");
            }
        }
        let record =
            (self.durable && self.core.registry.changes() != before).then(|| self.record());
        if self.commit(m, uow, record).await {
            self.core.registry.keep();
        } else {
            self.core.registry.roll_back();
        }
    }

    /// Puts message `m` unchanged (MQMD, header, area) in `uow` to the SBS
    /// server `server` of another group; a put that fails dead-letters it
    /// with the put's reason.
    async fn pass(&mut self, m: &GetResult, header: &PamsHeader, server: QAddress, uow: u64) {
        let put = match self.object_for(server) {
            Ok(obj) => {
                let msg = Outgoing {
                    md: m.md.clone(),
                    charset: m.charset,
                    data: m.data.clone(),
                };
                let pmo = PutOptions {
                    uow: Some(uow),
                    pass_all_context: true,
                    ..PutOptions::default()
                };
                self.mqi.put(&obj, msg, pmo).await
            }
            Err(e) => Err(e),
        };
        match put {
            Ok(r) => tracing::debug!(
                msg_id = %hex::encode_upper(m.md.msg_id),
                target = %header.original_target,
                server = %server,
                queue = %r.queue,
                "broadcast to a private MOT of another group passed to its SBS server"
            ),
            Err(e) => {
                let error = format!(
                    "{} is a private MOT of group {}, whose SBS server distributes it; the put to {server} failed: {}",
                    header.original_target, server.group, e.message
                );
                self.dead_letter(m, e.mqrc, &error, uow).await;
            }
        }
    }

    /// Distributes the broadcast `m` (header `header`, message area
    /// `area_len` bytes after it in `data`) to `mot`'s registered queues,
    /// after its unit of work committed: the copies are put on their own
    /// (as before), one destination-list put.
    async fn broadcast(
        &mut self,
        m: &GetResult,
        mot: Mot,
        header: &PamsHeader,
        data: &Bytes,
        area_len: usize,
    ) {
        let area = data.slice(PamsHeader::SIZE..PamsHeader::SIZE + area_len);
        let mut plan = self.core.plan_broadcast(mot, header, &area);
        let forwarded = header.forwarded();
        if let Some((by, seq)) = forwarded {
            self.arrival(by.group, &plan, seq);
        }
        for (queue, lost, notice) in std::mem::take(&mut plan.notices) {
            match self.send(notice, None).await {
                Ok(()) => self.core.registry.notice_delivered(mot, queue, lost),
                Err(e) => {
                    tracing::warn!(queue = %queue, mot = mot.number(), mqrc = e.mqrc.0, "sequence gap notice not delivered")
                }
            }
        }
        self.bus_notices(&plan).await;
        let mut lost = 0usize;
        let mut objs = Vec::with_capacity(plan.targets.len());
        let mut addrs = Vec::with_capacity(plan.targets.len());
        for t in &plan.targets {
            match self.object_for(t.queue) {
                Ok(o) => {
                    objs.push(o);
                    addrs.push(t.queue);
                }
                Err(e) => {
                    lost += 1;
                    tracing::warn!(queue = %t.queue, mot = mot.number(), mqrc = e.mqrc.0, error = %e.message, "broadcast copy lost");
                    self.core.registry.copy_result(mot, t.queue, false);
                }
            }
        }
        let copy = Bytes::from(plan.copy.with_area(&area));
        let results = if objs.is_empty() {
            Vec::new()
        } else {
            self.mqi
                .put_many_each(&objs, outgoing(&plan.copy, copy), PutOptions::default())
                .await
        };
        for (queue, r) in addrs.iter().zip(results) {
            match r {
                Ok(_) => self.core.registry.copy_result(mot, *queue, true),
                Err(e) => {
                    lost += 1;
                    tracing::warn!(queue = %queue, mot = mot.number(), mqrc = e.mqrc.0, error = %e.message, "broadcast copy lost");
                    self.core.registry.copy_result(mot, *queue, false);
                }
            }
        }
        // One line per broadcast: at DEBUG, as every per-message event,
        // unless copies were lost (each was warned of above).
        let forwarded_by = forwarded.map(|f| f.0).unwrap_or_default();
        let (msg_id, targets) = (hex::encode_upper(m.md.msg_id), plan.targets.len());
        let source = &plan.copy.original_source;
        if lost > 0 {
            tracing::warn!(%msg_id, mot = mot.number(), %source, %forwarded_by, targets, lost, "broadcast");
        } else {
            tracing::debug!(%msg_id, mot = mot.number(), %source, %forwarded_by, targets, lost, "broadcast");
        }
        // A universal broadcast goes once to every other group's server,
        // unless another server forwarded it here (it is never sent on again).
        if forwarded.is_none() && mot.kind() == MotKind::Universal {
            self.forward(&plan, &area).await;
        }
    }

    /// Checks the sequence number `seq` of a broadcast the server of group
    /// `sender` forwarded: the broadcasts a gap misses count once in the
    /// MOT's `seq_gaps`, and every queue registered for the MOT whose
    /// registration asked for notices is owed one.
    fn arrival(&mut self, sender: u16, plan: &BroadcastPlan, seq: u32) {
        let mot = plan.mot;
        let lost = match self.seqs.arrive(sender, mot, seq) {
            Arrival::Gap(n) => n,
            Arrival::Restarted => {
                tracing::info!(
                    sender_group = sender,
                    mot = mot.number(),
                    seq,
                    "forwarded broadcasts numbered anew: the sending SBS server started again"
                );
                return;
            }
            Arrival::First | Arrival::InOrder => return,
        };
        let queues = self.core.registry.registrants(mot);
        tracing::warn!(
            sender_group = sender,
            mot = mot.number(),
            seq,
            lost,
            registrants = queues.len(),
            "sequence gap in the broadcasts forwarded by another group's SBS server"
        );
        // seq_gaps counts the broadcasts missing once, whatever the number
        // of queues registered for them (docs/messageq.md "SBS server").
        self.core.registry.count_lost(mot, lost);
        for q in queues {
            if self.core.registry.notice_for(mot, q).is_some() {
                self.seqs.owe(mot, q, sender, lost);
            }
        }
    }

    /// Sends the notices owed to the targets of `plan` for gaps in other
    /// groups' forwarded streams (SBS_SEQUENCE_GAP with `sender_group` the
    /// forwarding group), before their copies.
    async fn bus_notices(&mut self, plan: &BroadcastPlan) {
        let mot = plan.mot;
        for t in &plan.targets {
            // Owed notices are rare: look them up first, the registration's
            // notice kind only for a queue that is owed one.
            let owed = self.seqs.owed(mot, t.queue);
            if owed.is_empty() {
                continue;
            }
            let Some((kind, order)) = self.core.registry.notice_for(mot, t.queue) else {
                continue;
            };
            for (sender, lost) in owed {
                let notice = self
                    .core
                    .gap_notice(kind, lost, sender, mot, t.queue, order);
                match self.send(notice, None).await {
                    Ok(()) => self.seqs.paid(mot, t.queue, sender, lost),
                    Err(e) => {
                        tracing::warn!(queue = %t.queue, mot = mot.number(), sender_group = sender, mqrc = e.mqrc.0, "sequence gap notice not delivered")
                    }
                }
            }
        }
    }

    /// Sends one copy of the universal broadcast of `plan` to the SBS server
    /// (queue 99) of every other group of the bus, marked with this server's
    /// address and the next sequence number for the MOT and that group. The
    /// put goes to the group's transmission queue and never waits for its
    /// channel; a put that fails (the queue full, not defined, ...) loses
    /// that group's copy only, which its server sees as a gap.
    async fn forward(&mut self, plan: &BroadcastPlan, area: &Bytes) {
        let mot = plan.mot;
        let me = self.core.server_address();
        if let Some(out) = &self.universal {
            let seq = self.seqs.next_sent(mot, BUS_STREAM);
            let header = PamsHeader {
                forwarded_by: me,
                forward_seq: seq,
                ..plan.copy
            };
            match out.0.try_send(Bytes::from(header.with_area(area))) {
                Ok(()) => {
                    tracing::debug!(
                        mot = mot.number(),
                        seq,
                        "universal broadcast sent on the bus"
                    )
                }
                Err(e) => {
                    let not_forwarded = self.seqs.not_forwarded(mot, BUS_STREAM);
                    tracing::warn!(mot = mot.number(), seq, error = %e, not_forwarded, "universal broadcast not sent on the bus: the other gateways' copies are lost");
                }
            }
            return;
        }
        let groups: Vec<u16> = self.queues.bus().groups().map(|r| r.group).collect();
        for group in groups {
            let seq = self.seqs.next_sent(mot, group);
            let header = PamsHeader {
                forwarded_by: me,
                forward_seq: seq,
                ..plan.copy
            };
            let out = PamsOut {
                to: QAddress::sbs_server(group),
                header,
                area: area.to_vec(),
            };
            match self.send(out, None).await {
                Ok(()) => {
                    tracing::debug!(
                        group,
                        mot = mot.number(),
                        seq,
                        "universal broadcast forwarded"
                    )
                }
                Err(e) => {
                    let not_forwarded = self.seqs.not_forwarded(mot, group);
                    tracing::warn!(
                        group,
                        mot = mot.number(),
                        seq,
                        mqrc = e.mqrc.0,
                        error = %e.message,
                        not_forwarded,
                        "universal broadcast not forwarded: that group's copy is lost"
                    );
                }
            }
        }
    }

    /// The opened mqgate queue of address `a`: a queue of this group, or
    /// `PAMS.<group>.<queue>` at the queue manager of a group of the bus
    /// (src/sbs/group.rs). Errors: a group that is not on the bus (2087
    /// MQRC_UNKNOWN_REMOTE_Q_MGR) and the errors of [`Mqi::open`].
    fn object_for(&mut self, a: QAddress) -> Result<Object, QmError> {
        let d = self.queues.destination(a).ok_or_else(|| {
            QmError::new(
                Mqrc::UNKNOWN_REMOTE_Q_MGR,
                format!(
                    "{a} is a queue of group {}, which is not on this gateway's bus (%XGROUP, messageq.groups)",
                    a.group
                ),
            )
        })?;
        let key = (d.queue, d.q_mgr);
        if let Some(o) = self.objects.get(&key) {
            return Ok(o.clone());
        }
        let o = self.mqi.open(&key.0, &key.1)?;
        self.objects.insert(key, o.clone());
        Ok(o)
    }

    /// Puts `out` with the target queue's default persistence, in unit of
    /// work `uow` when given.
    async fn send(&mut self, out: PamsOut, uow: Option<u64>) -> Result<(), QmError> {
        self.send_as(out, uow, per::PERSISTENCE_AS_Q_DEF).await
    }

    /// [`SbsServer::send`] with MQMD Persistence `persistence`.
    async fn send_as(
        &mut self,
        out: PamsOut,
        uow: Option<u64>,
        persistence: i32,
    ) -> Result<(), QmError> {
        let obj = self.object_for(out.to)?;
        let data = Bytes::from(out.header.with_area(&out.area));
        let pmo = PutOptions {
            uow,
            ..PutOptions::default()
        };
        let mut msg = outgoing(&out.header, data);
        msg.md.persistence = persistence;
        self.mqi.put(&obj, msg, pmo).await.map(|_| ())
    }

    /// Puts `m` on the dead-letter queue in unit of work `uow`, behind an
    /// MQDLH with `reason`; logged with `error`. When that fails too (no
    /// dead-letter queue, or it is full) the message is discarded with an
    /// error in the log, so that it cannot hold up the messages behind it.
    async fn dead_letter(&self, m: &GetResult, reason: Mqrc, error: &str, uow: u64) {
        let (mqi, md, charset, data, queue) = (
            self.mqi.clone(),
            m.md.clone(),
            m.charset,
            m.data.clone(),
            m.queue.clone(),
        );
        let put = Mqi::blocking(move || {
            let dl = DeadLetter {
                md: &md,
                charset,
                data: &data,
                reason,
                dest_q: &queue,
                dest_q_mgr: "",
            };
            mqi.dead_letter_as(&dl, "mqgate", Some(uow))
        })
        .await;
        match put {
            Ok(r) => tracing::warn!(
                msg_id = %hex::encode_upper(m.md.msg_id),
                queue = %m.queue,
                dead_letter_queue = %r.queue,
                reason = reason.0,
                error = %error,
                "SBS server dead-lettered a message it does not serve"
            ),
            Err(e) => tracing::error!(
                msg_id = %hex::encode_upper(m.md.msg_id),
                queue = %m.queue,
                reason = reason.0,
                error = %error,
                dlq_error = %e.message,
                "SBS server could not dead-letter a message it does not serve; message discarded"
            ),
        }
    }
}

/// True for the reasons of a stopping queue manager (2161, 2162).
fn stopping(mqrc: Mqrc) -> bool {
    mqrc == Mqrc::Q_MGR_QUIESCING || mqrc == Mqrc::Q_MGR_STOPPING
}
