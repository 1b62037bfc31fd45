//! What the SBS server does with one message, without I/O: an SBS request
//! (SBS_REGISTER_REQ, SBS_DEREGISTER_REQ, SBS_STATUS_REQ and the V3.2
//! SBS_REG, SBS_REG_EZ, SBS_DEREG, SBS_DEREG_BY_ID) becomes the replies to
//! send; a broadcast to a MOT becomes the queues to copy it to and the
//! sequence-gap notices owed to them (BEA MessageQ Programmer's Guide,
//! "Broadcasting Messages"; the layouts of `p_msg.h` V4.0-08, read by
//! `mqgate_codecs::pams::sbs`). docs/messageq.md "SBS server" describes the
//! behaviour and the choices mqgate made.

use super::group::GroupQueues;
use super::registry::{GapNotice, Registration, Registry, Target};
use mqgate_codecs::mq::Mqrc;
use mqgate_codecs::pams::address::MotKind;
use mqgate_codecs::pams::address::queues::PAMS_SBS_SERVER;
use mqgate_codecs::pams::sbs::register::SBS_VERSION;
use mqgate_codecs::pams::sbs::status_msg::STATUS_RESP_DATA_SIZE;
use mqgate_codecs::pams::sbs::{
    self, DeregisterResp, MSG_CLAS_PAMS, RegisterResp, SbsBsSeqgap, SbsDeregAck, SbsMessage,
    SbsRegEzReply, SbsRegReply, SbsType, SequenceGap, StatusResp, StatusRespMot,
};
use mqgate_codecs::pams::{
    Broadcast, Conjunction, Endian, Mot, PamsHeader, PamsStatus, QAddress, SbsStatus,
    SelectionRule, WireError,
};
use std::sync::Arc;

/// A PAMS message to send: where to, its header and message area.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PamsOut {
    /// The queue it goes to (group 0 replaced by this group).
    pub to: QAddress,
    /// Its header.
    pub header: PamsHeader,
    /// Its message area.
    pub area: Vec<u8>,
}

/// What became of a message read as a request.
#[derive(Debug, Default)]
pub struct Handled {
    /// Replies to send, in order.
    pub replies: Vec<PamsOut>,
    /// Why the request was refused (logged); `None` when it was served.
    pub error: Option<String>,
    /// Set when the message is no request the server reads: it goes to the
    /// dead-letter queue with this reason.
    pub dead_letter: Option<Mqrc>,
}

/// A broadcast to distribute.
#[derive(Debug)]
pub struct BroadcastPlan {
    /// The MOT.
    pub mot: Mot,
    /// The header of every copy: source and original target the MOT,
    /// original source the publisher.
    pub copy: PamsHeader,
    /// The queues that get a copy.
    pub targets: Vec<Target>,
    /// The gap notices to send before the copies: (queue, copies reported, notice).
    pub notices: Vec<(QAddress, u32, PamsOut)>,
}

/// Where a broadcast goes ([`Core::route_broadcast`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BroadcastRoute {
    /// Distributed by this server: the MOT.
    Here(Mot),
    /// Passed unchanged to this SBS server (a private MOT of its group).
    Pass(QAddress),
}

/// A broadcast the server does not distribute.
#[derive(Debug)]
pub struct Refusal {
    /// The MQDLH reason it is dead-lettered with.
    pub reason: Mqrc,
    /// What was wrong.
    pub error: String,
}

/// SBS_STATUS_RESP_MOT records per SBS_STATUS_RESP: as many as its 31988-byte
/// `data` holds (210).
pub const STATUS_RECORDS_PER_RESP: usize = STATUS_RESP_DATA_SIZE / StatusRespMot::SIZE;

/// The status the obsolete replies carry for a failure: PAMS__BADPARAM
/// (`p_return.h`; the V3.2 replies say only "negative = failure").
const OLD_FAILURE: i16 = PamsStatus::BADPARAM.0 as i16;

/// Who owns a new registration: given its queue and `auto_dereg`, the
/// attachment it ends with (src/sbs/attach.rs), if any.
pub type OwnerOf = Box<dyn Fn(QAddress, bool) -> Option<u64> + Send + Sync>;

/// The SBS server's state and decisions.
pub struct Core {
    queues: Arc<GroupQueues>,
    /// The registration database.
    pub registry: Registry,
    owner_of: OwnerOf,
}

impl Core {
    /// A server for the group of `queues`, without registrations; no
    /// registration has an owner.
    pub fn new(queues: Arc<GroupQueues>) -> Self {
        Core {
            queues,
            registry: Registry::new(),
            owner_of: Box::new(|_, _| None),
        }
    }

    /// The same server, asking `owner_of` who owns each new registration.
    pub fn with_owners(self, owner_of: OwnerOf) -> Self {
        Core { owner_of, ..self }
    }

    /// Registers `reg` with its owner.
    fn add(&mut self, mut reg: Registration) -> Result<(u16, i32), SbsStatus> {
        reg.owner = (self.owner_of)(reg.queue, reg.auto_dereg);
        self.registry.register(reg)
    }

    /// The server's own address: queue 99 of this group.
    pub fn server_address(&self) -> QAddress {
        QAddress::new(self.queues.group(), PAMS_SBS_SERVER)
    }

    /// A reply to `req` of type `t` in `order`: class MSG_CLAS_PAMS, from the
    /// server, to the request's response queue (its source when it gave
    /// none), with the request's priority and correlation id.
    /// Registers `reg` for the obsolete V3.2 request `name` (SBS_REG or
    /// SBS_REG_EZ): the (status, reg_id, number_reg) of its old reply —
    /// 1 and the new reg_id, or PAMS__BADPARAM, reg_id 0 and the queue's
    /// registrations for the MOT, the failure noted in `out`.
    fn register_old(
        &mut self,
        reg: Registration,
        name: &str,
        out: &mut Handled,
    ) -> (i16, u16, i16) {
        let (mot, queue) = (reg.mot, reg.queue);
        match self.add(reg) {
            Ok((id, n)) => (1, id, clamp16(n)),
            Err(s) => {
                out.error = Some(format!("{name} for MOT {mot}: {s}"));
                let n = self.registry.number_reg(mot, queue);
                (OLD_FAILURE, 0, clamp16(n))
            }
        }
    }

    fn reply(&self, req: &PamsHeader, t: SbsType, area: Vec<u8>, order: Endian) -> PamsOut {
        let to = self.queues.normalize(req.reply_to());
        let mut header = PamsHeader::new(MSG_CLAS_PAMS, t.code(), self.server_address(), to, order);
        header.priority = req.priority;
        header.correlation_id = req.correlation_id;
        PamsOut { to, header, area }
    }

    /// Serves the request in `header` and `area`.
    pub fn handle_request(&mut self, header: &PamsHeader, area: &[u8]) -> Handled {
        let Some(t) = SbsType::from_code(header.msg_type).filter(|t| is_request(*t)) else {
            let what = match SbsType::from_code(header.msg_type) {
                Some(t) => format!("{t} is not a request the SBS server takes"),
                None => match sbs::types::dmq::unsupported_name(header.msg_type) {
                    Some(name) => format!(
                        "type {} ({name}) is a DECmessageQ 2.x/3.x message mqgate does not implement ({})",
                        header.msg_type,
                        PamsStatus::NOTSUPPORTED
                    ),
                    None => format!("type {} is no SBS request", header.msg_type),
                },
            };
            return Handled {
                error: Some(format!("class {} {what}", header.class)),
                dead_letter: Some(Mqrc::FORMAT_ERROR),
                ..Handled::default()
            };
        };
        // The byte order: from the body where one field tells it, else the
        // order the header names (docs/messageq.md "Byte order").
        let order = sbs::detect_endian(header.msg_type, area)
            .or(header.area_endian())
            .unwrap_or(Endian::Big);
        if header.class != MSG_CLAS_PAMS {
            let error = format!(
                "{t} with class {}: SBS requests have class MSG_CLAS_PAMS {MSG_CLAS_PAMS} ({})",
                header.class,
                SbsStatus::BADPARAM
            );
            return self.refuse(header, t, area, order, None, error);
        }
        match SbsMessage::decode(header.msg_type, area, order) {
            Err(e) => {
                let error = e.to_string();
                self.refuse(header, t, area, order, Some(&e), error)
            }
            Ok(m) => self.serve(header, m, area, order),
        }
    }

    /// The failure reply of a request of type `t` that cannot be served.
    fn refuse(
        &self,
        header: &PamsHeader,
        t: SbsType,
        area: &[u8],
        order: Endian,
        e: Option<&WireError>,
        error: String,
    ) -> Handled {
        let version = order
            .read_i32(area, 0)
            .filter(|v| (1..=0xFFFF).contains(v))
            .unwrap_or(SBS_VERSION);
        let user_tag = e
            .and_then(|e| e.user_tag)
            .or_else(|| order.read_i32(area, 4))
            .unwrap_or(0);
        let status = SbsStatus::BADPARAM;
        let (rt, body) = failure_body(t, version, user_tag, status, order);
        Handled {
            replies: vec![self.reply(header, rt, body, order)],
            error: Some(error),
            dead_letter: None,
        }
    }

    fn serve(&mut self, header: &PamsHeader, m: SbsMessage, area: &[u8], order: Endian) -> Handled {
        let t = m.sbs_type();
        let mut out = Handled::default();
        let bad = |me: &Core, what: String| me.refuse(header, t, area, order, None, what);
        match m {
            SbsMessage::RegisterReq(req) => {
                let queue = match self.distribution_q(req.distribution_q) {
                    Ok(q) => q,
                    Err(e) => return bad(self, format!("SBS_REGISTER_REQ distribution_q: {e}")),
                };
                let Some(mot) = req.as_mot() else {
                    return bad(
                        self,
                        format!("SBS_REGISTER_REQ mot {} is not a MOT", req.mot),
                    );
                };
                let r = Registration {
                    reg_id: 0,
                    mot,
                    queue,
                    order,
                    conjunction: req.conjunction(),
                    rules: req.rules.clone(),
                    gap_notice: req.wants_gap_notices().then_some(GapNotice::SequenceGap),
                    auto_dereg: req.wants_auto_dereg(),
                    owner: None,
                };
                let (status, reg_id, number_reg) = match self.add(r) {
                    Ok((id, n)) => (SbsStatus::SUCCESS, i32::from(id), n),
                    Err(s) => {
                        out.error = Some(format!("SBS_REGISTER_REQ for MOT {mot}: {s}"));
                        (s, 0, self.registry.number_reg(mot, queue))
                    }
                };
                if req.wants_ack() || status != SbsStatus::SUCCESS {
                    let resp = RegisterResp {
                        version: req.version,
                        user_tag: req.user_tag,
                        status,
                        reg_id,
                        number_reg,
                    };
                    let body = resp.encode(order).to_vec();
                    out.replies
                        .push(self.reply(header, SbsType::RegisterResp, body, order));
                }
            }
            SbsMessage::DeregisterReq(req) => {
                let queue = self.queues.normalize(req.distribution_q);
                let Some(mot) = req.as_mot() else {
                    return bad(
                        self,
                        format!("SBS_DEREGISTER_REQ mot {} is not a MOT", req.mot),
                    );
                };
                let result = match req.reg_id {
                    0 => self.registry.deregister(mot, queue, None),
                    id => match u16::try_from(id) {
                        Ok(id) => self.registry.deregister(mot, queue, Some(id)),
                        Err(_) => Err(SbsStatus::NOMATCH),
                    },
                };
                let (status, number_reg) = match result {
                    Ok(n) => (SbsStatus::SUCCESS, n),
                    Err(s) => (s, self.registry.number_reg(mot, queue)),
                };
                if req.wants_ack() {
                    let resp = DeregisterResp {
                        version: req.version,
                        status,
                        user_tag: req.user_tag,
                        number_reg,
                    };
                    let body = resp.encode(order).to_vec();
                    out.replies
                        .push(self.reply(header, SbsType::DeregisterResp, body, order));
                }
            }
            SbsMessage::StatusReq(req) => {
                let records = self
                    .registry
                    .status(req.start_mot, req.end_mot, req.reset != 0);
                let chunks: Vec<&[StatusRespMot]> = if records.is_empty() {
                    vec![&[]]
                } else {
                    records.chunks(STATUS_RECORDS_PER_RESP).collect()
                };
                let last = chunks.len() - 1;
                for (i, chunk) in chunks.into_iter().enumerate() {
                    let mut data = Vec::with_capacity(chunk.len() * StatusRespMot::SIZE);
                    for r in chunk {
                        data.extend_from_slice(&r.encode(order));
                    }
                    let resp = StatusResp {
                        version: req.version,
                        user_tag: req.user_tag,
                        status: SbsStatus::SUCCESS,
                        num_rec: chunk.len() as i32,
                        last_block: i32::from(i == last),
                        data,
                    };
                    match resp.encode(order) {
                        Ok(body) => {
                            out.replies
                                .push(self.reply(header, SbsType::StatusResp, body, order))
                        }
                        Err(e) => out.error = Some(e.to_string()),
                    }
                }
            }
            SbsMessage::Reg(r) => {
                let queue = match self.distribution_q(r.distribution_q) {
                    Ok(q) => q,
                    Err(e) => return bad(self, format!("SBS_REG distribution_q: {e}")),
                };
                let Ok(mot) = Mot::new(i64::from(r.mot)) else {
                    return bad(self, format!("SBS_REG mot {} is not a MOT", r.mot));
                };
                let rules = match obsolete_rule(r.offset, r.data_operator, r.length, r.operand) {
                    Ok(rules) => rules,
                    Err(e) => return bad(self, format!("SBS_REG {e}")),
                };
                let reg = Registration {
                    reg_id: 0,
                    mot,
                    queue,
                    order,
                    conjunction: Conjunction::All,
                    rules,
                    gap_notice: (r.req_seqgap != 0).then_some(GapNotice::BsSeqgap),
                    auto_dereg: r.req_autodereg != 0,
                    owner: None,
                };
                let (status, reg_id, number_reg) = self.register_old(reg, "SBS_REG", &mut out);
                let reply = SbsRegReply {
                    status,
                    reg_id,
                    number_reg,
                };
                if r.req_ack != 0 || reply.status != 1 {
                    let body = reply.encode(order).to_vec();
                    out.replies
                        .push(self.reply(header, SbsType::RegReply, body, order));
                }
            }
            SbsMessage::RegEz(r) => {
                let queue = match self.distribution_q(r.distribution_q) {
                    Ok(q) => q,
                    Err(e) => return bad(self, format!("SBS_REG_EZ distribution_q: {e}")),
                };
                let Ok(mot) = Mot::new(i64::from(r.mot)) else {
                    return bad(self, format!("SBS_REG_EZ mot {} is not a MOT", r.mot));
                };
                let reg = Registration {
                    reg_id: 0,
                    mot,
                    queue,
                    order,
                    conjunction: Conjunction::All,
                    rules: Vec::new(),
                    gap_notice: None,
                    auto_dereg: false,
                    owner: None,
                };
                // SBS_REG_EZ has no req_ack: it is always answered.
                let (status, reg_id, number_reg) = self.register_old(reg, "SBS_REG_EZ", &mut out);
                let reply = SbsRegEzReply {
                    status,
                    reg_id,
                    number_reg,
                };
                let body = reply.encode(order).to_vec();
                out.replies
                    .push(self.reply(header, SbsType::RegEzReply, body, order));
            }
            SbsMessage::Dereg(r) => {
                let queue = self.queues.normalize(r.distribution_q);
                let Ok(mot) = Mot::new(i64::from(r.mot)) else {
                    return bad(self, format!("SBS_DEREG mot {} is not a MOT", r.mot));
                };
                let ack = match self.registry.deregister(mot, queue, None) {
                    Ok(n) => SbsDeregAck {
                        status: 1,
                        number_reg: clamp16(n),
                    },
                    Err(_) => SbsDeregAck {
                        status: OLD_FAILURE,
                        number_reg: clamp16(self.registry.number_reg(mot, queue)),
                    },
                };
                if r.req_ack != 0 {
                    let body = ack.encode(order).to_vec();
                    out.replies
                        .push(self.reply(header, SbsType::DeregAck, body, order));
                }
            }
            SbsMessage::DeregById(r) => {
                let ack = match self.registry.deregister_id(r.reg_id) {
                    Ok(n) => SbsDeregAck {
                        status: 1,
                        number_reg: clamp16(n),
                    },
                    Err(_) => SbsDeregAck {
                        status: OLD_FAILURE,
                        number_reg: 0,
                    },
                };
                if r.req_ack != 0 {
                    let body = ack.encode(order).to_vec();
                    out.replies
                        .push(self.reply(header, SbsType::DeregAck, body, order));
                }
            }
            other => {
                // is_request() let only the requests above through.
                out.error = Some(format!("{} is not a request", other.sbs_type()));
                out.dead_letter = Some(Mqrc::FORMAT_ERROR);
            }
        }
        out
    }

    /// A registration's distribution queue, group 0 replaced by this group.
    /// Errors: queue number 0, a MOT, or the SBS server's own queue (copies
    /// would come back to the server).
    fn distribution_q(&self, q: QAddress) -> Result<QAddress, String> {
        let q = self.queues.normalize(q);
        if q.queue == 0 {
            return Err(format!("{q} names no queue (queue number 0)"));
        }
        if q.mot().is_some() {
            return Err(format!("{q} is a MOT, not a queue"));
        }
        if q.queue == PAMS_SBS_SERVER {
            return Err(format!("{q} is an SBS server's queue"));
        }
        Ok(q)
    }

    /// Where a message of queue 99 whose `original_target` is a MOT goes
    /// (docs/messageq.md "SBS server", "Between groups"): distributed here,
    /// or — a private MOT of another group of the bus, not forwarded —
    /// passed unchanged to that group's SBS server, which distributes its
    /// private MOTs itself (as the PAMS API sends a put to such a MOT).
    ///
    /// Errors (the message is dead-lettered with the reason):
    /// - a `forwarded_by` that is not queue 99 of another group of the bus:
    ///   2142 MQRC_HEADER_ERROR (only an SBS server of the bus forwards);
    /// - a reserved MOT (4900-5100, "Reserved for use by BEA MessageQ",
    ///   Programmer's Guide Table 3-1): PAMS__BADPARAM, 2051
    ///   MQRC_PUT_INHIBITED;
    /// - a MOT of a group that is not on the bus: 2087
    ///   MQRC_UNKNOWN_REMOTE_Q_MGR (the PAMS API answers -76 PAMS__NOLINK).
    pub fn route_broadcast(&self, header: &PamsHeader) -> Result<BroadcastRoute, Refusal> {
        let here = self.queues.group();
        let forwarded = header.forwarded();
        if let Some((by, _)) = forwarded
            && (by.queue != PAMS_SBS_SERVER
                || by.group == here
                || by.group == 0
                || !self.queues.bus().forwards_from(by.group))
        {
            return Err(Refusal {
                reason: Mqrc::HEADER_ERROR,
                error: format!(
                    "forwarded_by {by} is not the SBS server (queue 99) of another group of this gateway's bus (%XGROUP, messageq.groups): only those forward broadcasts to group {here}"
                ),
            });
        }
        let target = self.queues.normalize(header.original_target);
        let Some(mot) = target.mot() else {
            return Err(Refusal {
                reason: Mqrc::UNKNOWN_OBJECT_NAME,
                error: format!("{target} is not a MOT"),
            });
        };
        if mot.is_reserved() {
            return Err(Refusal {
                reason: Mqrc::PUT_INHIBITED,
                error: format!(
                    "MOT {mot} is reserved for BEA MessageQ (4900-5100): applications may not broadcast to it ({})",
                    PamsStatus::BADPARAM
                ),
            });
        }
        if target.group == here || forwarded.is_some() {
            return Ok(BroadcastRoute::Here(mot));
        }
        if self.queues.bus().get(target.group).is_none() {
            return Err(Refusal {
                reason: Mqrc::UNKNOWN_REMOTE_Q_MGR,
                error: format!(
                    "{target} is a MOT of group {}, which is not on this gateway's bus (%XGROUP, messageq.groups; the PAMS API answers {})",
                    target.group,
                    PamsStatus::NOLINK
                ),
            });
        }
        Ok(match mot.kind() {
            MotKind::Private => BroadcastRoute::Pass(QAddress::sbs_server(target.group)),
            MotKind::Universal => BroadcastRoute::Here(mot),
        })
    }

    /// The copies of the broadcast in `header` and `area` to `mot` (as
    /// [`Core::route_broadcast`] found it) and the gap notices owed. Counts
    /// the broadcast in the MOT's counters.
    pub fn plan_broadcast(&mut self, mot: Mot, header: &PamsHeader, area: &[u8]) -> BroadcastPlan {
        let publisher = self
            .queues
            .normalize(if header.original_source == QAddress::default() {
                header.source
            } else {
                header.original_source
            });
        let order = header.area_endian().unwrap_or(Endian::Big);
        let message = Broadcast {
            class: header.class,
            msg_type: header.msg_type,
            original_source: publisher,
            body: area,
            endian: order,
        };
        let targets = self.registry.select(mot, &message);
        let mot_address = mot.address(self.queues.group());
        // A forwarded broadcast's mark is for this server only.
        let copy = PamsHeader {
            original_target: mot_address,
            source: mot_address,
            original_source: publisher,
            forwarded_by: QAddress::default(),
            forward_seq: 0,
            ..*header
        };
        let mut notices = Vec::new();
        for t in &targets {
            let Some((kind, lost, order)) = t.gap else {
                continue;
            };
            let notice = self.gap_notice(kind, lost, self.queues.group(), mot, t.queue, order);
            notices.push((t.queue, lost, notice));
        }
        BroadcastPlan {
            mot,
            copy,
            targets,
            notices,
        }
    }

    /// The gap notice `kind` to `queue` in `order`: `lost` copies of `mot`
    /// missing on the stream distributed by the SBS server of `sender_group`
    /// (this group for copies this server could not deliver, another group
    /// for a gap in the broadcasts it forwarded; docs/messageq.md "Between
    /// groups"), `channel` 0 (no Ethernet channel).
    pub fn gap_notice(
        &self,
        kind: GapNotice,
        lost: u32,
        sender_group: u16,
        mot: Mot,
        queue: QAddress,
        order: Endian,
    ) -> PamsOut {
        let (sbs_type, body) = match kind {
            GapNotice::SequenceGap => (
                SbsType::SequenceGap,
                SequenceGap {
                    num_msgs_missing: i32::try_from(lost).unwrap_or(i32::MAX),
                    sender_group: i32::from(sender_group),
                    mot: i32::from(mot.number()),
                    channel: 0,
                }
                .encode(order)
                .to_vec(),
            ),
            GapNotice::BsSeqgap => (
                SbsType::BsSeqgap,
                SbsBsSeqgap {
                    num_msgs_missing: i32::try_from(lost).unwrap_or(i32::MAX),
                    sender_group,
                    mot: mot.number(),
                    channel: 0,
                }
                .encode(order)
                .to_vec(),
            ),
        };
        let header = PamsHeader::new(
            MSG_CLAS_PAMS,
            sbs_type.code(),
            self.server_address(),
            queue,
            order,
        );
        PamsOut {
            to: queue,
            header,
            area: body,
        }
    }
}

/// The requests the SBS server takes.
fn is_request(t: SbsType) -> bool {
    matches!(
        t,
        SbsType::RegisterReq
            | SbsType::DeregisterReq
            | SbsType::StatusReq
            | SbsType::Reg
            | SbsType::RegEz
            | SbsType::Dereg
            | SbsType::DeregById
    )
}

/// The response type and failure body for a request of type `t`.
fn failure_body(
    t: SbsType,
    version: i32,
    user_tag: i32,
    status: SbsStatus,
    order: Endian,
) -> (SbsType, Vec<u8>) {
    match t {
        SbsType::DeregisterReq => (
            SbsType::DeregisterResp,
            DeregisterResp {
                version,
                status,
                user_tag,
                number_reg: 0,
            }
            .encode(order)
            .to_vec(),
        ),
        SbsType::StatusReq => (
            SbsType::StatusResp,
            StatusResp {
                version,
                user_tag,
                status,
                num_rec: 0,
                last_block: 1,
                data: Vec::new(),
            }
            .encode(order)
            .unwrap_or_default(),
        ),
        SbsType::Reg => (
            SbsType::RegReply,
            SbsRegReply {
                status: OLD_FAILURE,
                reg_id: 0,
                number_reg: 0,
            }
            .encode(order)
            .to_vec(),
        ),
        SbsType::RegEz => (
            SbsType::RegEzReply,
            SbsRegEzReply {
                status: OLD_FAILURE,
                reg_id: 0,
                number_reg: 0,
            }
            .encode(order)
            .to_vec(),
        ),
        SbsType::Dereg | SbsType::DeregById => (
            SbsType::DeregAck,
            SbsDeregAck {
                status: OLD_FAILURE,
                number_reg: 0,
            }
            .encode(order)
            .to_vec(),
        ),
        // SBS_REGISTER_REQ (and, defensively, anything else).
        _ => (
            SbsType::RegisterResp,
            RegisterResp {
                version,
                user_tag,
                status,
                reg_id: 0,
                number_reg: 0,
            }
            .encode(order)
            .to_vec(),
        ),
    }
}

/// The rule of an obsolete SBS_REG: none when `offset` or `length` is 0
/// ("no matching"); a positive `offset` is 1-based into the message area
/// (DECmessageQ `sbsmsgde.h`), a negative one a header selector.
fn obsolete_rule(
    offset: i16,
    data_operator: i8,
    length: i16,
    operand: u32,
) -> Result<Vec<SelectionRule>, String> {
    if offset == 0 || length == 0 {
        return Ok(Vec::new());
    }
    let offset = if offset > 0 {
        i32::from(offset) - 1
    } else {
        i32::from(offset)
    };
    SelectionRule::from_wire(
        offset,
        i32::from(data_operator),
        i32::from(length),
        operand as i32,
    )
    .map(|r| vec![r])
    .map_err(|f| format!("{}: {} ({})", f.field, f.kind, SbsStatus::BADPARAM))
}

fn clamp16(n: i32) -> i16 {
    i16::try_from(n).unwrap_or(i16::MAX)
}

#[cfg(test)]
mod tests {
    use super::*;
    use mqgate_codecs::pams::sbs::{DeregisterReq, RegisterReq, SbsReg};

    fn core() -> Core {
        Core::new(Arc::new(GroupQueues::new(10, None)))
    }

    fn request(t: SbsType, order: Endian) -> PamsHeader {
        PamsHeader::new(
            MSG_CLAS_PAMS,
            t.code(),
            QAddress::new(10, 5),
            QAddress::new(10, 99),
            order,
        )
    }

    #[test]
    fn register_and_deregister_answer_in_the_request_order() {
        for order in Endian::BOTH {
            let mut c = core();
            let mut req = RegisterReq::new(Mot::new(4100).unwrap(), QAddress::new(0, 7));
            req.req_ack = 1;
            req.user_tag = 77;
            let h = c.handle_request(
                &request(SbsType::RegisterReq, order),
                &req.encode_full_size(order).unwrap(),
            );
            assert_eq!(h.error, None);
            assert_eq!(h.replies.len(), 1);
            let r = &h.replies[0];
            assert_eq!(r.to, QAddress::new(10, 5));
            assert_eq!(r.header.msg_type, -1197);
            let resp = RegisterResp::decode(&r.area, order).unwrap();
            assert_eq!(
                (
                    resp.version,
                    resp.user_tag,
                    resp.status,
                    resp.reg_id,
                    resp.number_reg
                ),
                (40, 77, SbsStatus::SUCCESS, 1, 1)
            );
            let d = DeregisterReq {
                version: 40,
                user_tag: 5,
                mot: 4100,
                distribution_q: QAddress::new(10, 7),
                reg_id: 0,
                req_ack: 1,
            };
            let h = c.handle_request(&request(SbsType::DeregisterReq, order), &d.encode(order));
            let resp = DeregisterResp::decode(&h.replies[0].area, order).unwrap();
            assert_eq!(
                (resp.status, resp.user_tag, resp.number_reg),
                (SbsStatus::SUCCESS, 5, 0)
            );
        }
    }

    #[test]
    fn malformed_requests_get_badparam() {
        let mut c = core();
        let h = c.handle_request(
            &request(SbsType::RegisterReq, Endian::Big),
            &[0, 0, 0, 40, 0, 0, 0, 9],
        );
        assert!(h.error.is_some());
        let resp = RegisterResp::decode(&h.replies[0].area, Endian::Big).unwrap();
        assert_eq!(
            (resp.version, resp.user_tag, resp.status),
            (40, 9, SbsStatus::BADPARAM)
        );
        let mut wrong_class = request(SbsType::RegisterReq, Endian::Big);
        wrong_class.class = 30;
        let req = RegisterReq::new(Mot::new(4100).unwrap(), QAddress::new(0, 7));
        let h = c.handle_request(&wrong_class, &req.encode(Endian::Big).unwrap());
        assert!(h.error.unwrap().contains("class 30"));
        assert_eq!(c.registry.iter().count(), 0);
        let h = c.handle_request(&request(SbsType::RegisterResp, Endian::Big), &[0; 20]);
        assert_eq!(h.dead_letter, Some(Mqrc::FORMAT_ERROR));
        assert!(h.replies.is_empty());
    }

    #[test]
    fn obsolete_reg_uses_a_one_based_offset() {
        let mut c = core();
        let reg = SbsReg {
            version: 20,
            mot: 4100,
            distribution_q: QAddress::new(10, 7),
            offset: 1,
            data_operator: -1,
            length: 1,
            operand: 65,
            req_ack: 1,
            req_seqgap: 0,
            req_autodereg: 0,
        };
        let h = c.handle_request(
            &request(SbsType::Reg, Endian::Little),
            &reg.encode(Endian::Little),
        );
        let reply = SbsRegReply::decode(&h.replies[0].area, Endian::Little).unwrap();
        assert_eq!((reply.status, reply.reg_id, reply.number_reg), (1, 1, 1));
        let r = c.registry.get(1).unwrap();
        assert_eq!(
            r.rules[0].selector,
            mqgate_codecs::pams::Selector::Body(
                mqgate_codecs::pams::rules::BodyOffset::new(0).unwrap()
            )
        );
    }
}
