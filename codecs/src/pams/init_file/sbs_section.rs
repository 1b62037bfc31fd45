//! `%SBS`: the SBS server's section (Programmer's Guide, Listings 3-2 and 3-3).
//!
//! mqgate reads `HEARTBEAT n` (milliseconds) and `COMM_SERVICE id DG/DMQ`
//! blocks — broadcasting over the MessageQ transport, which is what mqgate
//! does — with `GROUPS *` (all known server groups) and `REGISTER *` (all
//! universal MOTs), closed by `END_COMM_SERVICE`. The OpenVMS Ethernet
//! multicast service (`DG/ETH`) and its keywords are refused by line.

use super::error::{InitFileError, InitFileErrorKind, Pos};
use super::lex::Word;
use super::sections::{Columns, number};
use super::{CommService, SbsSection};

/// The keywords of the OpenVMS Ethernet service (Listing 3-3), refused.
const ETHERNET_KEYWORDS: [&str; 5] = [
    "DEVICE_1",
    "DEVICE_2",
    "DRIVER_BUFFERS",
    "CNTRL_CHAN",
    "DATA_CHAN",
];

const ETHERNET: &str = "OpenVMS Ethernet multicasting (DG/ETH) is not implemented by mqgate, \
                        which broadcasts over its cross-group links (DG/DMQ)";

fn err(pos: Pos, kind: InitFileErrorKind) -> InitFileError {
    InitFileError::new(pos, kind)
}

/// The block being read: the service and the lines of its GROUPS / REGISTER.
struct Open {
    service: CommService,
    groups_line: Option<usize>,
    register_line: Option<usize>,
}

pub(crate) fn sbs(
    pos: Pos,
    eos: Pos,
    lines: &[Vec<Word<'_>>],
) -> Result<SbsSection, InitFileError> {
    let mut section = SbsSection {
        pos,
        heartbeat_ms: None,
        services: Vec::new(),
    };
    let mut heartbeat_line = None;
    let mut open: Option<Open> = None;
    for words in lines {
        let mut c = Columns::new(words);
        let kw = c.required("an %SBS keyword")?;
        let upper = kw.text.to_ascii_uppercase();
        if ETHERNET_KEYWORDS.contains(&upper.as_str()) {
            return Err(err(
                kw.pos,
                InitFileErrorKind::UnsupportedKeyword {
                    keyword: upper,
                    reason: ETHERNET,
                },
            ));
        }
        match upper.as_str() {
            "HEARTBEAT" => {
                if open.is_some() {
                    return Err(err(
                        kw.pos,
                        InitFileErrorKind::MisplacedKeyword {
                            keyword: upper,
                            belongs: "outside COMM_SERVICE blocks",
                        },
                    ));
                }
                if let Some(first_line) = heartbeat_line {
                    return Err(err(
                        kw.pos,
                        InitFileErrorKind::DuplicateKeyword {
                            keyword: upper,
                            first_line,
                        },
                    ));
                }
                let ms = number(
                    c.required("heartbeat interval")?,
                    "heartbeat interval",
                    u64::from(u32::MAX),
                )?;
                c.finish()?;
                section.heartbeat_ms = Some(ms as u32);
                heartbeat_line = Some(kw.pos.line);
            }
            "COMM_SERVICE" => {
                if let Some(o) = &open {
                    return Err(err(
                        kw.pos,
                        InitFileErrorKind::UnterminatedService {
                            open_line: o.service.pos.line,
                        },
                    ));
                }
                let id = number(c.required("service id")?, "service id", u64::from(u32::MAX))?;
                let proto = c.required("protocol/transport")?;
                if proto.text.eq_ignore_ascii_case("DG/ETH") {
                    return Err(err(
                        proto.pos,
                        InitFileErrorKind::UnsupportedValue {
                            keyword: upper,
                            value: super::clip(proto.text),
                            reason: ETHERNET,
                        },
                    ));
                }
                if !proto.text.eq_ignore_ascii_case("DG/DMQ") {
                    return Err(err(
                        proto.pos,
                        InitFileErrorKind::BadChoice {
                            column: "protocol/transport",
                            found: proto.text.chars().take(40).collect(),
                            allowed: "DG/DMQ",
                        },
                    ));
                }
                c.finish()?;
                open = Some(Open {
                    service: CommService {
                        pos: kw.pos,
                        id: id as u32,
                        all_groups: false,
                        all_universal_mots: false,
                    },
                    groups_line: None,
                    register_line: None,
                });
            }
            "GROUPS" | "REGISTER" => {
                let Some(o) = open.as_mut() else {
                    return Err(err(
                        kw.pos,
                        InitFileErrorKind::MisplacedKeyword {
                            keyword: upper,
                            belongs: "inside a COMM_SERVICE block",
                        },
                    ));
                };
                let groups = upper == "GROUPS";
                let seen = if groups {
                    &mut o.groups_line
                } else {
                    &mut o.register_line
                };
                if let Some(first_line) = *seen {
                    return Err(err(
                        kw.pos,
                        InitFileErrorKind::DuplicateKeyword {
                            keyword: upper,
                            first_line,
                        },
                    ));
                }
                let v = c.required(if groups { "server groups" } else { "MOTs" })?;
                if v.text != "*" {
                    return Err(err(
                        v.pos,
                        InitFileErrorKind::UnsupportedValue {
                            keyword: upper,
                            value: v.text.chars().take(40).collect(),
                            reason: "mqgate reads only `*` here (GROUPS *: all known server \
                                     groups; REGISTER *: all universal MOTs)",
                        },
                    ));
                }
                c.finish()?;
                *seen = Some(kw.pos.line);
                if groups {
                    o.service.all_groups = true;
                } else {
                    o.service.all_universal_mots = true;
                }
            }
            "END_COMM_SERVICE" => {
                let Some(o) = open.take() else {
                    return Err(err(
                        kw.pos,
                        InitFileErrorKind::MisplacedKeyword {
                            keyword: upper,
                            belongs: "after a COMM_SERVICE line",
                        },
                    ));
                };
                c.finish()?;
                section.services.push(o.service);
            }
            _ => {
                return Err(err(
                    kw.pos,
                    InitFileErrorKind::UnknownKeyword {
                        section: "SBS",
                        keyword: kw.text.chars().take(40).collect(),
                    },
                ));
            }
        }
    }
    if let Some(o) = open {
        return Err(err(
            eos,
            InitFileErrorKind::UnterminatedService {
                open_line: o.service.pos.line,
            },
        ));
    }
    Ok(section)
}
