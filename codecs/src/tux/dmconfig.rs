//! DMCONFIG for the TOP END Domain Gateway as typed configuration (Oracle Tuxedo
//! "DMCONFIG(5)", "DM_MIB(5)"; BEA Tuxedo "Using the BEA Tuxedo TOP END Domain Gateway").
//! The text syntax is [`super::cfgtext`].
//!
//! Sections (aliases of Tuxedo 7.1+ accepted): DM_LOCAL_DOMAINS (DM_LOCAL),
//! DM_REMOTE_DOMAINS (DM_REMOTE), DM_TOPEND, DM_LOCAL_SERVICES (DM_EXPORT),
//! DM_REMOTE_SERVICES (DM_IMPORT) — all five required — and the optional
//! DM_ACCESS_CONTROL, DM_ROUTING, DM_RESOURCES. Any other section is an error.
//!
//! mqgate's choices where those pages are silent: TYPE=TOPEND is required on
//! domains; TE_PRODUCT is required on QNAME and SERVICE entries (RTQ addresses
//! a service by product and function and no default exists); TE_QUALIFIER's
//! MAXLONG is 2147483647 (a 32-bit FML32 long in DM_MIB); a QNAME's INBUFTYPE
//! must be one the TEDG carries (FML32, CARRAY, X_OCTET); two entries of the
//! same TYPE and name in one section are an error.

use std::fmt;

use super::buftype::BufferType;
use super::cfgtext::{ConfigText, ConfigTextError, Entry, Param, Pos};

/// Longest service, QSPACE or QNAME entry name ("DMCONFIG(5)").
pub const MAX_ENTRY_NAME: usize = 15;
/// Largest TE_QUALIFIER (MAXLONG of a 32-bit long).
pub const MAX_TE_QUALIFIER: i64 = 2_147_483_647;

/// A section of a TEDG DMCONFIG, by its canonical name.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum DmSection {
    /// DM_RESOURCES
    Resources,
    /// DM_LOCAL_DOMAINS, alias DM_LOCAL
    LocalDomains,
    /// DM_REMOTE_DOMAINS, alias DM_REMOTE
    RemoteDomains,
    /// DM_TOPEND
    Topend,
    /// DM_LOCAL_SERVICES, alias DM_EXPORT
    LocalServices,
    /// DM_REMOTE_SERVICES, alias DM_IMPORT
    RemoteServices,
    /// DM_ACCESS_CONTROL
    AccessControl,
    /// DM_ROUTING
    Routing,
}

impl DmSection {
    /// The canonical section name.
    pub fn name(self) -> &'static str {
        match self {
            DmSection::Resources => "DM_RESOURCES",
            DmSection::LocalDomains => "DM_LOCAL_DOMAINS",
            DmSection::RemoteDomains => "DM_REMOTE_DOMAINS",
            DmSection::Topend => "DM_TOPEND",
            DmSection::LocalServices => "DM_LOCAL_SERVICES",
            DmSection::RemoteServices => "DM_REMOTE_SERVICES",
            DmSection::AccessControl => "DM_ACCESS_CONTROL",
            DmSection::Routing => "DM_ROUTING",
        }
    }

    /// The section for a name or alias ("DMCONFIG(5)"; aliases from Tuxedo 7.1).
    pub fn from_name(name: &str) -> Option<DmSection> {
        Some(match name {
            "DM_RESOURCES" => DmSection::Resources,
            "DM_LOCAL_DOMAINS" | "DM_LOCAL" => DmSection::LocalDomains,
            "DM_REMOTE_DOMAINS" | "DM_REMOTE" => DmSection::RemoteDomains,
            "DM_TOPEND" => DmSection::Topend,
            "DM_LOCAL_SERVICES" | "DM_EXPORT" => DmSection::LocalServices,
            "DM_REMOTE_SERVICES" | "DM_IMPORT" => DmSection::RemoteServices,
            "DM_ACCESS_CONTROL" => DmSection::AccessControl,
            "DM_ROUTING" => DmSection::Routing,
            _ => return None,
        })
    }

    /// The five sections a TEDG DMCONFIG needs (the TEDG guide).
    pub const REQUIRED: [DmSection; 5] = [
        DmSection::LocalDomains,
        DmSection::RemoteDomains,
        DmSection::Topend,
        DmSection::LocalServices,
        DmSection::RemoteServices,
    ];
}

/// A local or remote domain (DM_LOCAL_DOMAINS / DM_REMOTE_DOMAINS).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Domain {
    /// LDOM / RDOM name.
    pub name: String,
    /// GWGRP (local domains; `None` for remote ones).
    pub gwgrp: Option<String>,
    /// DOMAINID (ACCESSPOINTID also accepted).
    pub domainid: String,
    /// Where the entry is.
    pub pos: Pos,
    /// Every parameter of the entry (including the ones above), for the rest.
    pub params: Vec<Param>,
}

/// A DM_TOPEND entry: how to reach a domain's TOP END system.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TopendAddress {
    /// The domain name.
    pub name: String,
    /// NWADDR, e.g. `//host:port`.
    pub nwaddr: String,
    /// TP_SYSTEM
    pub tp_system: String,
    /// Where the entry is.
    pub pos: Pos,
}

/// A TOP END service identifier (product, function, target, qualifier).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TopendService {
    /// TE_PRODUCT, 1..32 characters.
    pub product: String,
    /// TE_FUNCTION, 1..8 characters.
    pub function: String,
    /// TE_TARGET, 1..8 characters (MSR target); `None` = blanks.
    pub target: Option<String>,
    /// TE_QUALIFIER, 0..=2147483647, default 0.
    pub qualifier: i64,
}

/// A QSPACE entry: the RTQ queue a Tuxedo queue space stands for.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct QspaceEntry {
    /// The queue space name (≤ 15).
    pub name: String,
    /// TE_RTQGROUP, 1..32 characters.
    pub rtq_group: String,
    /// TE_RTQNAME, 1..8 characters.
    pub rtq_name: String,
    /// TE_TARGET, 1..8 characters, optional.
    pub target: Option<String>,
    /// Where the entry is.
    pub pos: Pos,
    /// Every parameter of the entry.
    pub params: Vec<Param>,
}

/// A QNAME entry: the TOP END service an RTQ request addresses.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct QnameEntry {
    /// The queue name (≤ 15).
    pub name: String,
    /// TE_PRODUCT, TE_FUNCTION, TE_TARGET, TE_QUALIFIER.
    pub service: TopendService,
    /// INBUFTYPE, if set: the only buffer type accepted.
    pub inbuftype: Option<BufferType>,
    /// Where the entry is.
    pub pos: Pos,
    /// Every parameter of the entry.
    pub params: Vec<Param>,
}

/// A SERVICE entry.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ServiceEntry {
    /// The Tuxedo service name (≤ 15).
    pub name: String,
    /// The TOP END service it maps to.
    pub service: TopendService,
    /// INBUFTYPE as written (`type[:subtype]`).
    pub inbuftype: Option<String>,
    /// OUTBUFTYPE as written (`type[:subtype]`).
    pub outbuftype: Option<String>,
    /// Where the entry is.
    pub pos: Pos,
    /// Every parameter of the entry.
    pub params: Vec<Param>,
}

/// The entries of a DM_LOCAL_SERVICES or DM_REMOTE_SERVICES section.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Services {
    /// TYPE=SERVICE entries (the default type).
    pub services: Vec<ServiceEntry>,
    /// TYPE=QSPACE entries.
    pub qspaces: Vec<QspaceEntry>,
    /// TYPE=QNAME entries.
    pub qnames: Vec<QnameEntry>,
}

impl Services {
    /// The QSPACE entry for a queue space name.
    pub fn qspace(&self, name: &str) -> Option<&QspaceEntry> {
        self.qspaces.iter().find(|q| q.name == name)
    }

    /// The QNAME entry for a queue name.
    pub fn qname(&self, name: &str) -> Option<&QnameEntry> {
        self.qnames.iter().find(|q| q.name == name)
    }
}

/// A TEDG DMCONFIG.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct DmConfig {
    /// DM_RESOURCES parameters (e.g. VERSION).
    pub resources: Vec<Param>,
    /// DM_LOCAL_DOMAINS
    pub local_domains: Vec<Domain>,
    /// DM_REMOTE_DOMAINS
    pub remote_domains: Vec<Domain>,
    /// DM_TOPEND
    pub topend: Vec<TopendAddress>,
    /// DM_LOCAL_SERVICES (DM_EXPORT): Tuxedo services and queues offered to TOP END.
    pub local_services: Services,
    /// DM_REMOTE_SERVICES (DM_IMPORT): TOP END services and RTQ queues offered to Tuxedo.
    pub remote_services: Services,
    /// DM_ACCESS_CONTROL entries, not interpreted.
    pub access_control: Vec<Entry>,
    /// DM_ROUTING entries, not interpreted.
    pub routing: Vec<Entry>,
}

/// What was wrong with a DMCONFIG.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum DmConfigErrorKind {
    /// A syntax error (the position is in the outer error).
    Syntax(String),
    /// A section name that is not a DMCONFIG section for the TEDG.
    UnknownSection(String),
    /// A section given twice (possibly once by its alias).
    DuplicateSection {
        /// Canonical name.
        section: &'static str,
        /// Line of the first one.
        first_line: usize,
    },
    /// A required section is missing.
    MissingSection(&'static str),
    /// A required parameter is missing on an entry.
    MissingParam {
        /// The entry name.
        entry: String,
        /// The keyword.
        key: &'static str,
    },
    /// A parameter value outside its allowed size, range or set.
    BadValue {
        /// The entry name.
        entry: String,
        /// The keyword.
        key: String,
        /// What was wrong.
        what: String,
    },
    /// A TE_* keyword on a TYPE that does not allow it, or an unknown TE_* keyword.
    ParamNotAllowed {
        /// The entry name.
        entry: String,
        /// The keyword.
        key: String,
        /// The entry's TYPE.
        entry_type: &'static str,
    },
    /// An entry name longer than 15 characters or empty.
    BadEntryName(String),
    /// Two entries with the same TYPE and name in one section.
    DuplicateEntry {
        /// The name.
        name: String,
        /// Line of the first one.
        first_line: usize,
    },
    /// A DM_TOPEND entry for a name that is no local or remote domain, or a
    /// domain with no DM_TOPEND entry.
    Topend(String),
    /// Section-level parameters in a section that takes only entries.
    ParamOutsideEntry(String),
}

/// A DMCONFIG error: position (when there is one) and what was wrong.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("DMCONFIG{}: {}", .pos.map(|p| format!(" line {}, column {}", p.line, p.column)).unwrap_or_default(), describe(.kind))]
pub struct DmConfigError {
    /// Where, if the error belongs to a place in the file.
    pub pos: Option<Pos>,
    /// What was wrong.
    pub kind: DmConfigErrorKind,
}

fn describe(k: &DmConfigErrorKind) -> String {
    use DmConfigErrorKind as K;
    match k {
        K::Syntax(s) => s.clone(),
        K::UnknownSection(s) => format!("unknown section *{s}"),
        K::DuplicateSection {
            section,
            first_line,
        } => format!("section *{section} already given on line {first_line}"),
        K::MissingSection(s) => format!("required section *{s} is missing"),
        K::MissingParam { entry, key } => format!("entry {entry:?}: required {key} is missing"),
        K::BadValue { entry, key, what } => format!("entry {entry:?}: {key}: {what}"),
        K::ParamNotAllowed {
            entry,
            key,
            entry_type,
        } => format!("entry {entry:?}: {key} is not allowed on TYPE={entry_type}"),
        K::BadEntryName(n) => format!("entry name {n:?} must be 1..={MAX_ENTRY_NAME} characters"),
        K::DuplicateEntry { name, first_line } => {
            format!("entry {name:?} of this TYPE already defined on line {first_line}")
        }
        K::Topend(s) => s.clone(),
        K::ParamOutsideEntry(k) => format!("{k} appears before any entry of the section"),
    }
}

fn at(pos: Pos, kind: DmConfigErrorKind) -> DmConfigError {
    DmConfigError {
        pos: Some(pos),
        kind,
    }
}

impl From<ConfigTextError> for DmConfigError {
    fn from(e: ConfigTextError) -> Self {
        at(e.pos, DmConfigErrorKind::Syntax(e.description()))
    }
}

/// The TYPE of a services entry.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum EntryType {
    Service,
    Qspace,
    Qname,
}

impl EntryType {
    fn name(self) -> &'static str {
        match self {
            EntryType::Service => "SERVICE",
            EntryType::Qspace => "QSPACE",
            EntryType::Qname => "QNAME",
        }
    }

    /// TE_* keywords allowed on this TYPE ("DM_MIB(5)").
    fn allows(self, key: &str) -> bool {
        match self {
            EntryType::Service | EntryType::Qname => {
                matches!(
                    key,
                    "TE_PRODUCT" | "TE_FUNCTION" | "TE_TARGET" | "TE_QUALIFIER"
                )
            }
            EntryType::Qspace => matches!(key, "TE_RTQGROUP" | "TE_RTQNAME" | "TE_TARGET"),
        }
    }
}

/// Reads string parameters of one entry with size checks.
struct EntryReader<'a> {
    entry: &'a Entry,
}

impl EntryReader<'_> {
    fn bad(&self, p: &Param, what: String) -> DmConfigError {
        at(
            p.pos,
            DmConfigErrorKind::BadValue {
                entry: self.entry.name.clone(),
                key: p.key.clone(),
                what,
            },
        )
    }

    /// An optional string of `min..=max` characters.
    fn opt(&self, key: &str, min: usize, max: usize) -> Result<Option<String>, DmConfigError> {
        match self.entry.get(key) {
            None => Ok(None),
            Some(p) => {
                let n = p.value.chars().count();
                if n < min || n > max {
                    Err(self.bad(p, format!("{n} characters, allowed {min}..={max}")))
                } else {
                    Ok(Some(p.value.clone()))
                }
            }
        }
    }

    /// A required string of `min..=max` characters.
    fn req(&self, key: &'static str, min: usize, max: usize) -> Result<String, DmConfigError> {
        self.opt(key, min, max)?.ok_or_else(|| {
            at(
                self.entry.pos,
                DmConfigErrorKind::MissingParam {
                    entry: self.entry.name.clone(),
                    key,
                },
            )
        })
    }

    fn service(&self) -> Result<TopendService, DmConfigError> {
        let qualifier = match self.entry.get("TE_QUALIFIER") {
            None => 0,
            Some(p) => p
                .value
                .parse::<i64>()
                .ok()
                .filter(|q| (0..=MAX_TE_QUALIFIER).contains(q))
                .ok_or_else(|| {
                    self.bad(
                        p,
                        format!("{:?} is not a number in 0..={MAX_TE_QUALIFIER}", p.value),
                    )
                })?,
        };
        Ok(TopendService {
            product: self.req("TE_PRODUCT", 1, 32)?,
            function: self.req("TE_FUNCTION", 1, 8)?,
            target: self.opt("TE_TARGET", 1, 8)?,
            qualifier,
        })
    }
}

fn check_entry_name(e: &Entry) -> Result<(), DmConfigError> {
    let n = e.name.chars().count();
    if n == 0 || n > MAX_ENTRY_NAME {
        return Err(at(e.pos, DmConfigErrorKind::BadEntryName(e.name.clone())));
    }
    Ok(())
}

fn all_params(e: &Entry) -> Vec<Param> {
    let mut v = e.inherited.clone();
    v.extend(e.params.iter().cloned());
    v
}

fn parse_services(entries: &[Entry], max_buftype: usize) -> Result<Services, DmConfigError> {
    let mut out = Services::default();
    let mut seen: Vec<(EntryType, &str, usize)> = Vec::new();
    for e in entries {
        check_entry_name(e)?;
        let r = EntryReader { entry: e };
        let entry_type = match e.get("TYPE").map(|p| (p, p.value.as_str())) {
            None | Some((_, "SERVICE")) => EntryType::Service,
            Some((_, "QSPACE")) => EntryType::Qspace,
            Some((_, "QNAME")) => EntryType::Qname,
            Some((p, v)) => {
                return Err(r.bad(p, format!("{v:?} is not SERVICE, QSPACE or QNAME")));
            }
        };
        if let Some(&(_, _, first_line)) = seen
            .iter()
            .find(|(t, n, _)| *t == entry_type && *n == e.name)
        {
            return Err(at(
                e.pos,
                DmConfigErrorKind::DuplicateEntry {
                    name: e.name.clone(),
                    first_line,
                },
            ));
        }
        seen.push((entry_type, &e.name, e.pos.line));
        for p in e.params.iter().chain(&e.inherited) {
            if p.key.starts_with("TE_") && !entry_type.allows(&p.key) {
                return Err(at(
                    p.pos,
                    DmConfigErrorKind::ParamNotAllowed {
                        entry: e.name.clone(),
                        key: p.key.clone(),
                        entry_type: entry_type.name(),
                    },
                ));
            }
        }
        let inbuf = r.opt("INBUFTYPE", 0, max_buftype)?;
        let outbuf = r.opt("OUTBUFTYPE", 0, max_buftype)?;
        match entry_type {
            EntryType::Service => out.services.push(ServiceEntry {
                name: e.name.clone(),
                service: r.service()?,
                inbuftype: inbuf,
                outbuftype: outbuf,
                pos: e.pos,
                params: all_params(e),
            }),
            EntryType::Qspace => out.qspaces.push(QspaceEntry {
                name: e.name.clone(),
                rtq_group: r.req("TE_RTQGROUP", 1, 32)?,
                rtq_name: r.req("TE_RTQNAME", 1, 8)?,
                target: r.opt("TE_TARGET", 1, 8)?,
                pos: e.pos,
                params: all_params(e),
            }),
            EntryType::Qname => {
                let inbuftype = match (&inbuf, e.get("INBUFTYPE")) {
                    (Some(t), Some(p)) if !t.is_empty() => {
                        Some(BufferType::from_name(t).ok_or_else(|| {
                            r.bad(
                                p,
                                format!("{t:?}: the TEDG carries only FML32, CARRAY, X_OCTET"),
                            )
                        })?)
                    }
                    _ => None,
                };
                out.qnames.push(QnameEntry {
                    name: e.name.clone(),
                    service: r.service()?,
                    inbuftype,
                    pos: e.pos,
                    params: all_params(e),
                });
            }
        }
    }
    Ok(out)
}

fn parse_domains(entries: &[Entry], local: bool) -> Result<Vec<Domain>, DmConfigError> {
    let mut out: Vec<Domain> = Vec::new();
    for e in entries {
        let r = EntryReader { entry: e };
        if let Some(first) = out.iter().find(|d| d.name == e.name) {
            return Err(at(
                e.pos,
                DmConfigErrorKind::DuplicateEntry {
                    name: e.name.clone(),
                    first_line: first.pos.line,
                },
            ));
        }
        match e.get("TYPE") {
            Some(p) if p.value == "TOPEND" => {}
            Some(p) => {
                return Err(r.bad(p, format!("{:?}: the TEDG needs TYPE=TOPEND", p.value)));
            }
            None => {
                return Err(at(
                    e.pos,
                    DmConfigErrorKind::MissingParam {
                        entry: e.name.clone(),
                        key: "TYPE",
                    },
                ));
            }
        }
        // DOMAINID / ACCESSPOINTID: 1..30 like LACCESSPOINT/RACCESSPOINT (DM_MIB(5)).
        let domainid = match (r.opt("DOMAINID", 1, 30)?, r.opt("ACCESSPOINTID", 1, 30)?) {
            (Some(d), _) | (None, Some(d)) => d,
            (None, None) => {
                return Err(at(
                    e.pos,
                    DmConfigErrorKind::MissingParam {
                        entry: e.name.clone(),
                        key: "DOMAINID",
                    },
                ));
            }
        };
        let gwgrp = if local {
            Some(r.req("GWGRP", 1, 30)?)
        } else {
            None
        };
        out.push(Domain {
            name: e.name.clone(),
            gwgrp,
            domainid,
            pos: e.pos,
            params: all_params(e),
        });
    }
    Ok(out)
}

impl DmConfig {
    /// Parses DMCONFIG text and checks it against "DMCONFIG(5)" and
    /// "DM_MIB(5)". Stops at the first error, naming its line and column.
    pub fn parse(text: &str) -> Result<Self, DmConfigError> {
        let raw = ConfigText::parse(text)?;
        let mut cfg = DmConfig::default();
        let mut seen: Vec<(DmSection, usize)> = Vec::new();
        for s in &raw.sections {
            let Some(kind) = DmSection::from_name(&s.name) else {
                return Err(at(s.pos, DmConfigErrorKind::UnknownSection(s.name.clone())));
            };
            if let Some(&(_, first_line)) = seen.iter().find(|(k, _)| *k == kind) {
                return Err(at(
                    s.pos,
                    DmConfigErrorKind::DuplicateSection {
                        section: kind.name(),
                        first_line,
                    },
                ));
            }
            seen.push((kind, s.pos.line));
            if kind != DmSection::Resources
                && let Some(p) = s.params.first()
            {
                return Err(at(
                    p.pos,
                    DmConfigErrorKind::ParamOutsideEntry(p.key.clone()),
                ));
            }
            match kind {
                DmSection::Resources => {
                    if let Some(e) = s.entries.first() {
                        return Err(at(
                            e.pos,
                            DmConfigErrorKind::Syntax(format!(
                                "*DM_RESOURCES takes KEYWORD=value only, found entry {:?}",
                                e.name
                            )),
                        ));
                    }
                    cfg.resources = s.params.clone();
                }
                DmSection::LocalDomains => cfg.local_domains = parse_domains(&s.entries, true)?,
                DmSection::RemoteDomains => cfg.remote_domains = parse_domains(&s.entries, false)?,
                DmSection::Topend => {
                    for e in &s.entries {
                        if let Some(first) = cfg.topend.iter().find(|t| t.name == e.name) {
                            return Err(at(
                                e.pos,
                                DmConfigErrorKind::DuplicateEntry {
                                    name: e.name.clone(),
                                    first_line: first.pos.line,
                                },
                            ));
                        }
                        let r = EntryReader { entry: e };
                        // NWADDR and TP_SYSTEM bounds are mqgate's (the manuals give
                        // none).
                        cfg.topend.push(TopendAddress {
                            name: e.name.clone(),
                            nwaddr: r.req("NWADDR", 1, 256)?,
                            tp_system: r.req("TP_SYSTEM", 1, 32)?,
                            pos: e.pos,
                        });
                    }
                }
                // INBUFTYPE sizes: 0..513 in DM_EXPORT, 0..256 in DM_IMPORT (DM_MIB(5)).
                DmSection::LocalServices => cfg.local_services = parse_services(&s.entries, 513)?,
                DmSection::RemoteServices => cfg.remote_services = parse_services(&s.entries, 256)?,
                DmSection::AccessControl => cfg.access_control = s.entries.clone(),
                DmSection::Routing => cfg.routing = s.entries.clone(),
            }
        }
        for req in DmSection::REQUIRED {
            if !seen.iter().any(|(k, _)| *k == req) {
                return Err(DmConfigError {
                    pos: None,
                    kind: DmConfigErrorKind::MissingSection(req.name()),
                });
            }
        }
        cfg.check_topend()?;
        Ok(cfg)
    }

    /// Every DM_TOPEND entry names a domain, and every domain has one (the TEDG guide).
    fn check_topend(&self) -> Result<(), DmConfigError> {
        let domains = self.local_domains.iter().chain(&self.remote_domains);
        for t in &self.topend {
            if !domains.clone().any(|d| d.name == t.name) {
                return Err(at(
                    t.pos,
                    DmConfigErrorKind::Topend(format!(
                        "*DM_TOPEND entry {:?} is no local or remote domain",
                        t.name
                    )),
                ));
            }
        }
        for d in domains {
            if !self.topend.iter().any(|t| t.name == d.name) {
                return Err(at(
                    d.pos,
                    DmConfigErrorKind::Topend(format!(
                        "domain {:?} has no *DM_TOPEND entry",
                        d.name
                    )),
                ));
            }
        }
        Ok(())
    }

    /// The DM_REMOTE_SERVICES QSPACE entry for a tpenqueue qspace (the TEDG guide's
    /// QSPACE lookup; none → TPENOENT).
    pub fn qspace(&self, name: &str) -> Option<&QspaceEntry> {
        self.remote_services.qspace(name)
    }

    /// The DM_REMOTE_SERVICES QNAME entry for a tpenqueue qname (the TEDG guide's QNAME
    /// lookup; none → TPEDIAGNOSTIC/QMEBADQUEUE).
    pub fn qname(&self, name: &str) -> Option<&QnameEntry> {
        self.remote_services.qname(name)
    }
}

impl fmt::Display for QspaceEntry {
    /// `name -> group/queue[@target]`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} -> {}/{}", self.name, self.rtq_group, self.rtq_name)?;
        if let Some(t) = &self.target {
            write!(f, "@{t}")?;
        }
        Ok(())
    }
}
