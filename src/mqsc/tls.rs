//! The TLS attributes of DEFINE CHANNEL — SSLCIPH, SSLPEER, SSLCAUTH (IBM
//! MQ "DEFINE CHANNEL") — and where mqgate keeps them
//! (docs/operations.md "mqgate mqsc"): a sender channel's own `tls` and
//! `sslpeer`; for receiver and server-connection channels, the `sslpeer` of
//! the channel and the `tls` of the listener they share (`listener.tls`,
//! `svrconn.tls`).
//!
//! IBM MQ keeps certificates in the queue manager's key repository, not in
//! channel definitions: the files come from [`Certificates`], and what is
//! missing is a note that says what to add.

use super::Note;
use crate::security::tls::{ClientAuth, MinVersion, SslPeer, TlsConfig, ciphers};
use mqgate_codecs::mqsc::{Command, quote};
use serde_yaml::{Mapping, Value};
use std::path::PathBuf;

/// The certificate files TLS settings made by an import name (what IBM MQ
/// keeps in the key repository of ALTER QMGR SSLKEYR).
#[derive(Clone, Debug, Default)]
pub struct Certificates {
    /// PEM file of the queue manager's certificate chain (`tls.cert`).
    pub cert: Option<PathBuf>,
    /// PEM file of its private key (`tls.key`).
    pub key: Option<PathBuf>,
    /// PEM file of the CA certificates peers' certificates must chain to
    /// (`tls.ca`).
    pub ca: Option<PathBuf>,
}

/// The TLS attributes of one DEFINE CHANNEL.
#[derive(Clone, Debug)]
pub(super) struct ChannelTls {
    /// The channel's name.
    pub name: String,
    /// The line of its DEFINE.
    define_line: usize,
    /// `CHANNEL('NAME')`, for notes.
    subject: String,
    /// SSLCIPH's line and CipherSpec; `None` for one mqgate cannot use
    /// (noted). No SSLCIPH, or a blank one: no TLS.
    sslciph: Option<(usize, Option<&'static str>)>,
    /// SSLPEER, checked.
    pub sslpeer: Option<String>,
    /// The line of SSLCAUTH(OPTIONAL).
    optional: Option<usize>,
}

fn note(notes: &mut Vec<Note>, line: usize, subject: String, message: String, invalid: bool) {
    notes.push(Note {
        line,
        subject,
        message,
        invalid,
    });
}

fn path_value(p: &std::path::Path) -> Value {
    Value::String(p.display().to_string())
}

/// The single value of attribute `k` of `c` with its line; a blank or
/// empty value (IBM MQ's default: no TLS, no filter) and a missing one are
/// `None`, a list or a keyword without a value is noted.
fn value(c: &Command, k: &str, subject: &str, notes: &mut Vec<Note>) -> Option<(usize, String)> {
    let p = c.param(k)?;
    if p.value.as_ref().is_some_and(Vec::is_empty) {
        return None;
    }
    match p.single() {
        Some(v) if v.trim().is_empty() => None,
        Some(v) => Some((p.line, v.trim().to_string())),
        None => {
            note(
                notes,
                p.line,
                format!("{subject} {k}"),
                "needs one value; not imported".into(),
                true,
            );
            None
        }
    }
}

/// Reads SSLCIPH, SSLPEER and (for the channel types that answer a TLS
/// handshake, RCVR and SVRCONN) SSLCAUTH of `c`, the definition of channel
/// `name` of type `kind`; what mqgate cannot take is noted with its line.
pub(super) fn read(
    c: &Command,
    name: &str,
    subject: &str,
    kind: &str,
    notes: &mut Vec<Note>,
) -> ChannelTls {
    let sslciph = value(c, "SSLCIPH", subject, notes).map(|(line, v)| match ciphers::canonical(&v) {
        Ok(n) => (line, Some(n)),
        Err(e) => {
            note(
                notes,
                line,
                format!("{subject} SSLCIPH({v})"),
                format!("{e}; the channel's TLS is written without ciphers (every suite rustls offers): choose a CipherSpec the peer shares"),
                true,
            );
            (line, None)
        }
    });
    let sslpeer = value(c, "SSLPEER", subject, notes).and_then(|(line, v)| {
        let shown = format!("{subject} SSLPEER({})", quote(&v));
        if sslciph.is_none() {
            note(
                notes,
                line,
                shown,
                "IBM MQ checks SSLPEER only on channels with SSLCIPH; not imported".into(),
                false,
            );
            return None;
        }
        match SslPeer::parse(&v) {
            Ok(_) => Some(v),
            Err(e) => {
                note(notes, line, shown, format!("{e}; not imported"), true);
                None
            }
        }
    });
    let mut optional = None;
    if matches!(kind, "RCVR" | "SVRCONN")
        && let Some((line, v)) = value(c, "SSLCAUTH", subject, notes)
    {
        let shown = format!("{subject} SSLCAUTH({v})");
        match (v.as_str(), sslciph.is_some()) {
            (_, false) => note(
                notes,
                line,
                shown,
                "has no effect without SSLCIPH; not imported".into(),
                false,
            ),
            ("REQUIRED", true) => {}
            ("OPTIONAL", true) => optional = Some(line),
            _ => note(
                notes,
                line,
                shown,
                "expected REQUIRED or OPTIONAL; not imported".into(),
                true,
            ),
        }
    }
    ChannelTls {
        name: name.to_string(),
        define_line: c.line,
        subject: subject.to_string(),
        sslciph,
        sslpeer,
        optional,
    }
}

/// The `tls` of sender channel `channels[index]`, when it has SSLCIPH:
/// `ca`, `cert` and `key` from `certs`, `ciphers` its CipherSpec. A missing
/// `ca` (required on an outbound connection) is noted with what to add.
pub(super) fn sender(
    t: &ChannelTls,
    index: usize,
    certs: &Certificates,
    notes: &mut Vec<Note>,
) -> Option<Mapping> {
    let (line, cipher) = t.sslciph?;
    let mut m = Mapping::new();
    for (k, v) in [
        ("ca", &certs.ca),
        ("cert", &certs.cert),
        ("key", &certs.key),
    ] {
        if let Some(p) = v {
            m.insert(k.into(), path_value(p));
        }
    }
    if let Some(n) = cipher {
        m.insert("ciphers".into(), Value::Sequence(vec![n.into()]));
    }
    if certs.ca.is_none() {
        note(
            notes,
            line,
            format!("{} SSLCIPH", t.subject),
            format!(
                "add channels[{index}].tls.ca, the PEM file of the CA certificates the receiver's certificate must chain to, and cert and key (the queue manager's certificate and key) for a receiver with SSLCAUTH(REQUIRED); or give mqsc import --tls-ca, --tls-cert and --tls-key"
            ),
            false,
        );
    }
    Some(m)
}

/// The `tls` of a listener that `channels` share (`setting`, e.g.
/// `listener.tls`, of `what`, e.g. `receiver channels`): made when one of
/// them has SSLCIPH. Its `ciphers` are every channel's CipherSpec,
/// `client_auth` required unless every one says SSLCAUTH(OPTIONAL); the
/// files come from `certs`. What this changes for a channel (a CipherSpec
/// of another channel now accepted, TLS now needed by one without SSLCIPH,
/// SSLCAUTH(OPTIONAL) overruled) and missing files are noted.
pub(super) fn shared(
    channels: &[ChannelTls],
    setting: &str,
    what: &str,
    certs: &Certificates,
    notes: &mut Vec<Note>,
) -> Option<Mapping> {
    let secured: Vec<&ChannelTls> = channels.iter().filter(|c| c.sslciph.is_some()).collect();
    let first = secured.first()?;
    let mut names: Vec<&'static str> = Vec::new();
    for (_, n) in secured.iter().filter_map(|c| c.sslciph) {
        if let Some(n) = n
            && !names.contains(&n)
        {
            names.push(n);
        }
    }
    if names.len() > 1 {
        note(
            notes,
            first.define_line,
            setting.to_string(),
            format!(
                "{what} share one listener: its ciphers are the CipherSpecs of all of them ({}), and each channel accepts any of them",
                names.join(", ")
            ),
            false,
        );
    }
    let required = secured.iter().find(|c| c.optional.is_none());
    if let Some(r) = required {
        for c in secured.iter().filter(|c| c.optional.is_some()) {
            note(
                notes,
                c.optional.unwrap_or(c.define_line),
                format!("{} SSLCAUTH(OPTIONAL)", c.subject),
                format!(
                    "{what} share {setting}, whose client_auth is required because {} has SSLCAUTH(REQUIRED); not imported",
                    r.subject
                ),
                false,
            );
        }
    }
    for c in channels.iter().filter(|c| c.sslciph.is_none()) {
        note(
            notes,
            c.define_line,
            c.subject.clone(),
            format!("{setting} applies to all {what}: this one, without SSLCIPH, needs TLS too"),
            false,
        );
    }
    let mut m = Mapping::new();
    for (k, v) in [
        ("cert", &certs.cert),
        ("key", &certs.key),
        ("ca", &certs.ca),
    ] {
        if let Some(p) = v {
            m.insert(k.into(), path_value(p));
        }
    }
    m.insert(
        "client_auth".into(),
        (if required.is_some() {
            "required"
        } else {
            "optional"
        })
        .into(),
    );
    if !names.is_empty() {
        m.insert(
            "ciphers".into(),
            Value::Sequence(names.iter().map(|n| (*n).into()).collect()),
        );
    }
    if certs.cert.is_none() || certs.key.is_none() || certs.ca.is_none() {
        let (line, _) = first.sslciph.unwrap_or((first.define_line, None));
        note(
            notes,
            line,
            format!("{} SSLCIPH", first.subject),
            format!(
                "add {setting}.cert and {setting}.key (the gateway's certificate and key) and {setting}.ca (the CA certificates the peers' certificates must chain to); or give mqsc import --tls-cert, --tls-key and --tls-ca"
            ),
            false,
        );
    }
    Some(m)
}

/// Puts `t` into `list` (by channel name: a later DEFINE of the same
/// channel replaces it, as runmqsc's REPLACE).
pub(super) fn upsert(list: &mut Vec<ChannelTls>, t: ChannelTls) {
    match list.iter_mut().find(|c| c.name == t.name) {
        Some(slot) => *slot = t,
        None => list.push(t),
    }
}

/// The SSLCIPH an export writes for the `tls:` setting `t` at YAML path
/// `path` (IBM MQ takes one CipherSpec per channel): its first `ciphers`
/// name, or without `ciphers` the alias of its `min_version`
/// (ANY_TLS12_OR_HIGHER, ANY_TLS13_OR_HIGHER). What MQSC cannot carry —
/// more CipherSpecs, the certificate files, revocation lists, a server
/// name — is returned as `(YAML path, message)` notes.
pub(super) fn sslciph(t: &TlsConfig, path: &str) -> (&'static str, Vec<(String, String)>) {
    let mut notes = Vec::new();
    let written = match t.ciphers.first().map(|n| ciphers::canonical(n)) {
        Some(Ok(n)) => n,
        // check-config refused any other name before.
        Some(Err(_)) | None => match t.min_version {
            MinVersion::Tls12 => "ANY_TLS12_OR_HIGHER",
            MinVersion::Tls13 => "ANY_TLS13_OR_HIGHER",
        },
    };
    if t.ciphers.len() > 1 {
        notes.push((
            format!("{path}.ciphers"),
            format!("IBM MQ takes one CipherSpec per channel: SSLCIPH({written}) is written, the others are not exported"),
        ));
    }
    let files: Vec<&str> = [
        ("cert", t.cert.is_some()),
        ("key", t.key.is_some()),
        ("ca", t.ca.is_some()),
    ]
    .iter()
    .filter(|(_, set)| *set)
    .map(|(k, _)| *k)
    .collect();
    if !files.is_empty() {
        notes.push((
            path.to_string(),
            format!(
                "{}: IBM MQ keeps certificates in the queue manager's key repository (ALTER QMGR SSLKEYR), not in channel definitions; not exported",
                files.join(", ")
            ),
        ));
    }
    if !t.crl.is_empty() {
        notes.push((
            format!("{path}.crl"),
            "IBM MQ reads revocation lists through AUTHINFO objects, not channel definitions; not exported".into(),
        ));
    }
    if let Some(n) = &t.server_name {
        notes.push((
            format!("{path}.server_name"),
            format!("{n:?} has no MQSC attribute; not exported"),
        ));
    }
    (written, notes)
}

/// SSLCAUTH for channels served by a listener whose `client_auth` is `a`:
/// nothing for required (IBM MQ's default), OPTIONAL otherwise (IBM MQ
/// always asks for a client certificate on a TLS channel).
pub(super) fn sslcauth(a: ClientAuth) -> Option<&'static str> {
    match a {
        ClientAuth::Required => None,
        ClientAuth::Optional | ClientAuth::None => Some("OPTIONAL"),
    }
}
