//! A configuration's queues and channels as MQSC DEFINE commands (and its
//! channel authentication rules as SET CHLAUTH, [`super::chlauth`]), in the
//! layout dmpmqcfg writes (one attribute a line, continued with `+`), with
//! only the attributes that differ from MQ's defaults, as dmpmqcfg writes
//! them without `-a` (IBM MQ "dmpmqcfg (dump queue manager configuration)").

use super::{MQ_CHANNEL_HBINT_S, Note};
use crate::config::{ChannelDef, Config, DefaultPersistence, QueueDef, Usage};
use mqgate_codecs::mqsc::quote;

/// MQ's defaults (IBM MQ "DEFINE queues", "DEFINE CHANNEL"), which are
/// mqgate's too except HBINT ([`MQ_CHANNEL_HBINT_S`]).
const MQ_MAXDEPTH: usize = 5000;
const MQ_MAXMSGL: usize = 4_194_304;
const MQ_BATCHSZ: u32 = 50;
const MQ_SHARECNV: u32 = 10;

/// What an export made: the script and the settings it could not carry.
#[derive(Debug)]
pub struct Exported {
    /// The MQSC script.
    pub script: String,
    /// Settings with no MQSC counterpart, by YAML path.
    pub notes: Vec<Note>,
}

/// One DEFINE (or ALTER) being written.
struct Define {
    head: String,
    attrs: Vec<String>,
}

impl Define {
    fn new(head: String) -> Self {
        Define {
            head,
            attrs: Vec::new(),
        }
    }

    fn attr(&mut self, keyword: &str, value: impl std::fmt::Display) {
        self.attrs.push(format!("{keyword}({value})"));
    }

    /// The command, each attribute on its own line, ending with `last`.
    fn write(mut self, last: &str, out: &mut String) {
        self.attrs.push(last.to_string());
        out.push_str(&self.head);
        for a in self.attrs {
            out.push_str(" +\n   ");
            out.push_str(&a);
        }
        out.push('\n');
    }
}

/// Writes `config`'s queue manager attributes, queues, message channels and
/// server-connection channels.
pub fn export(config: &Config) -> Exported {
    let mut out = String::from(
        "* MQSC definitions written by mqgate mqsc export (attributes that differ from MQ's defaults)\n",
    );
    let mut notes = Vec::new();
    let mut note = |subject: String, message: &str| {
        notes.push(Note {
            line: 0,
            subject,
            message: message.to_string(),
            invalid: false,
        })
    };
    let qm = &config.queue_manager;
    let mut alter = Define::new("ALTER QMGR".into());
    alter.attr("DEADQ", quote(&qm.dead_letter_queue));
    alter.attr("DEFXMITQ", quote(&qm.default_xmit_queue));
    if qm.max_msg_length != MQ_MAXMSGL {
        alter.attr("MAXMSGL", qm.max_msg_length);
    }
    alter.write("FORCE", &mut out);
    for (i, q) in config.queues.iter().enumerate() {
        let mut d;
        match q {
            QueueDef::Local(l) | QueueDef::Model(l) => {
                let model = matches!(q, QueueDef::Model(_));
                d = Define::new(format!(
                    "DEFINE {}({})",
                    if model { "QMODEL" } else { "QLOCAL" },
                    quote(&l.name)
                ));
                if let (true, Some(p)) = (model, &l.dynamic_q_name) {
                    note(
                        format!("queues[{i}].dynamic_q_name"),
                        &format!(
                            "{p:?} has no MQSC attribute (MQ names dynamic queues at MQOPEN); not exported"
                        ),
                    );
                }
                if l.usage == Usage::Xmitq {
                    d.attr("USAGE", "XMITQ");
                }
                if l.max_depth != MQ_MAXDEPTH {
                    d.attr("MAXDEPTH", l.max_depth);
                }
                if l.max_msg_length != MQ_MAXMSGL {
                    d.attr("MAXMSGL", l.max_msg_length);
                }
                if l.default_persistence == DefaultPersistence::Persistent {
                    d.attr("DEFPSIST", "YES");
                }
                if l.default_priority != 0 {
                    d.attr("DEFPRTY", l.default_priority);
                }
                if l.put_inhibited {
                    d.attr("PUT", "DISABLED");
                }
                if l.get_inhibited {
                    d.attr("GET", "DISABLED");
                }
                if l.backout_threshold != 0 {
                    d.attr("BOTHRESH", l.backout_threshold);
                }
                if !l.backout_requeue_q.is_empty() {
                    d.attr("BOQNAME", quote(&l.backout_requeue_q));
                }
            }
            QueueDef::Remote(r) => {
                d = Define::new(format!("DEFINE QREMOTE({})", quote(&r.name)));
                if let Some(v) = &r.remote_q_name {
                    d.attr("RNAME", quote(v));
                }
                if let Some(v) = &r.remote_q_mgr_name {
                    d.attr("RQMNAME", quote(v));
                }
                if let Some(v) = &r.xmit_q {
                    d.attr("XMITQ", quote(v));
                }
                if r.put_inhibited {
                    d.attr("PUT", "DISABLED");
                }
            }
            QueueDef::Alias(a) => {
                d = Define::new(format!("DEFINE QALIAS({})", quote(&a.name)));
                d.attr("TARGET", quote(&a.target));
                if a.put_inhibited {
                    d.attr("PUT", "DISABLED");
                }
                if a.get_inhibited {
                    d.attr("GET", "DISABLED");
                }
            }
        }
        d.write("REPLACE", &mut out);
    }
    // Notes about listener.tls, made once for all receiver channels.
    let mut tls_noted: Vec<String> = Vec::new();
    for (i, ch) in config.channels.iter().enumerate() {
        let path = |k: &str| format!("channels[{i}].{k}");
        let (kind, limits) = match ch {
            ChannelDef::Receiver(r) => {
                if !r.allowed_peers.is_empty() {
                    note(
                        path("allowed_peers"),
                        "no MQSC attribute (channel authentication records are not exported); not exported",
                    );
                }
                if !r.sending_q_mgr.is_empty() {
                    note(path("sending_q_mgr"), "no MQSC attribute; not exported");
                }
                if !r.receive_exits.is_empty() {
                    note(
                        path("receive_exits"),
                        "mqgate exits have no MQSC form; not exported",
                    );
                }
                if r.undelivered != crate::config::UndeliveredRule::default() {
                    note(path("undelivered"), "no MQSC attribute; not exported");
                }
                ("RCVR", &r.limits)
            }
            ChannelDef::Sender(s) => ("SDR", &s.limits),
            ChannelDef::MqClient(_) => {
                note(
                    path("type"),
                    "an mq-client channel is a client of another queue manager, no object of this one; not exported",
                );
                continue;
            }
        };
        let mut d = Define::new(format!("DEFINE CHANNEL({})", quote(ch.name())));
        d.attr("CHLTYPE", kind);
        d.attr("TRPTYPE", "TCP");
        if let ChannelDef::Sender(s) = ch {
            let conname = format!("{}({})", s.connect.ip(), s.connect.port());
            d.attr("CONNAME", quote(&conname));
            d.attr("XMITQ", quote(&s.xmit_queue));
        }
        if limits.batch_size != MQ_BATCHSZ {
            d.attr("BATCHSZ", limits.batch_size);
        }
        if limits.max_msg_length as usize != MQ_MAXMSGL {
            d.attr("MAXMSGL", limits.max_msg_length);
        }
        // HBINT counts whole seconds.
        let hbint = limits.heartbeat_ms.div_ceil(1000);
        if hbint * 1000 != limits.heartbeat_ms {
            note(
                path("heartbeat_ms"),
                &format!(
                    "{} ms is written as HBINT({hbint}) seconds",
                    limits.heartbeat_ms
                ),
            );
        }
        if hbint != MQ_CHANNEL_HBINT_S {
            d.attr("HBINT", hbint);
        }
        // A sender's own tls; receivers share the listener's.
        let (tls, tls_path, sslpeer) = match ch {
            ChannelDef::Sender(s) => (s.tls.as_ref(), path("tls"), s.sslpeer.as_ref()),
            ChannelDef::Receiver(r) => (
                config.listener.tls.as_ref(),
                "listener.tls".to_string(),
                r.sslpeer.as_ref(),
            ),
            ChannelDef::MqClient(_) => (None, String::new(), None),
        };
        if let Some(t) = tls {
            if matches!(ch, ChannelDef::Receiver(_))
                && let Some(a) = super::tls::sslcauth(t.client_auth)
            {
                d.attr("SSLCAUTH", a);
            }
            let (cipher, tls_notes) = super::tls::sslciph(t, &tls_path);
            d.attr("SSLCIPH", quote(cipher));
            for (subject, message) in tls_notes {
                if !tls_noted.contains(&subject) {
                    note(subject.clone(), &message);
                    tls_noted.push(subject);
                }
            }
        }
        if let Some(p) = sslpeer {
            d.attr("SSLPEER", quote(p.as_str()));
        }
        d.write("REPLACE", &mut out);
    }
    if let Some(s) = &config.svrconn {
        let tls = s.tls.as_ref().map(|t| {
            (
                super::tls::sslcauth(t.client_auth),
                super::tls::sslciph(t, "svrconn.tls"),
            )
        });
        if let Some((_, (_, tls_notes))) = &tls
            && !s.channels.is_empty()
        {
            for (subject, message) in tls_notes {
                note(subject.clone(), message);
            }
        }
        for (i, ch) in s.channels.iter().enumerate() {
            let mut d = Define::new(format!("DEFINE CHANNEL({})", quote(&ch.name)));
            d.attr("CHLTYPE", "SVRCONN");
            d.attr("TRPTYPE", "TCP");
            if ch.maxmsgl as usize != MQ_MAXMSGL {
                d.attr("MAXMSGL", ch.maxmsgl);
            }
            if ch.heartbeat != MQ_CHANNEL_HBINT_S {
                d.attr("HBINT", ch.heartbeat);
            }
            if ch.sharecnv != MQ_SHARECNV {
                d.attr("SHARECNV", ch.sharecnv);
            }
            if let Some((sslcauth, (cipher, _))) = &tls {
                if let Some(a) = sslcauth {
                    d.attr("SSLCAUTH", a);
                }
                d.attr("SSLCIPH", quote(cipher));
            }
            if let Some(p) = &ch.sslpeer {
                d.attr("SSLPEER", quote(p.as_str()));
            }
            if !ch.users.is_empty() {
                note(
                    format!("svrconn.channels[{i}].users"),
                    "no MQSC attribute (users and passwords are the operating system's in MQ); not exported",
                );
            }
            d.write("REPLACE", &mut out);
        }
    }
    super::chlauth::export(&config.security.chlauth, &mut out, &mut notes);
    Exported { script: out, notes }
}
