//! SPI, the interface IBM's JMS client uses beside the MQI: QUERY (which
//! SPI verbs the queue manager offers) and OPEN (MQOPEN with the JMS
//! defaults of the queue in the reply). Nothing of it is published; what
//! mqgate answers follows a queue manager's replies in real JMS client
//! traffic (docs/mq-client-protocol.md "SPI").

use super::conversation::{Conv, Reply};
use super::padded;
use mqgate_codecs::fap::spi::{
    SpiData, SpiPart, SpiVerb, parse_spi_open, verb, write_spi, write_spi_open, write_spqo,
};
use mqgate_codecs::fap::{ApiHeader, Verb};
use mqgate_codecs::mq::{ByteOrder, Mqrc};

/// The verbs mqgate offers, with the versions and flags a queue manager
/// gave for them.
const VERBS: [SpiVerb; 2] = [
    SpiVerb {
        verb: verb::QUERY,
        max_inout_version: 2,
        max_in_version: 2,
        max_out_version: 2,
        flags: 1,
    },
    SpiVerb {
        verb: verb::OPEN,
        max_inout_version: 1,
        max_in_version: 2,
        max_out_version: 2,
        flags: 1,
    },
];

impl Conv {
    /// SPI QUERY and OPEN; other verbs get 2298 MQRC_FUNCTION_NOT_SUPPORTED.
    pub(super) fn spi(&mut self, api: &ApiHeader, v: &Verb<'_>, order: ByteOrder) -> Reply {
        let Verb::Spi(s) = v else {
            return Reply::reason(Mqrc::FUNCTION_NOT_SUPPORTED, api.hobj, Vec::new());
        };
        let part = |name: &[u8; 4]| s.parts.iter().find(|p| &p.name() == name);
        let header_only = |s: &SpiData<'_>| {
            let mut b = Vec::new();
            write_spi(
                &SpiData {
                    parts: Vec::new(),
                    ..s.clone()
                },
                order,
                &mut b,
            );
            b
        };
        match s.verb {
            verb::QUERY => {
                let mut out = Vec::new();
                write_spqo(&VERBS, order, &mut out);
                let inout = part(b"SPQU").cloned().unwrap_or(SpiPart {
                    struc_id: *b"SPQU",
                    version: 1,
                    data: &[],
                });
                let version = part(b"SPQI").map_or(1, |p| p.version);
                let r = SpiData {
                    parts: vec![
                        inout,
                        SpiPart {
                            struc_id: *b"SPQO",
                            version,
                            data: &out,
                        },
                    ],
                    ..s.clone()
                };
                let mut b = Vec::new();
                write_spi(&r, order, &mut b);
                Reply::ok(0, b)
            }
            verb::OPEN => {
                let Some(input) = part(b"SPOI") else {
                    return Reply::reason(Mqrc::OPTIONS_ERROR, 0, header_only(s));
                };
                let open = match parse_spi_open(input.data, 0, order) {
                    Ok(o) => o,
                    Err(e) => return Reply::reason(e.mqrc(), 0, header_only(s)),
                };
                let opened = match self.open_object(&open.od, open.lpoo.options) {
                    Ok(o) => o,
                    Err(e) => return Reply::error(&e, 0, header_only(s)),
                };
                let mut od = open.od.clone();
                self.resolved(&mut od, &opened);
                let extra = attributes(&od.object_name);
                let mut lpoo = open.lpoo.clone();
                lpoo.def_persistence = opened.def_persistence;
                // MQPRT_SYNC_RESPONSE, MQREADA_NO, MQPROP_COMPATIBILITY.
                lpoo.def_put_response_type = 1;
                lpoo.def_read_ahead = 0;
                lpoo.property_control = 0;
                if lpoo.v3.is_some() {
                    lpoo.v3 = Some((padded(""), 12 + input.data.len() as i32, extra.len() as i32));
                }
                let mut data = Vec::new();
                write_spi_open(
                    &mqgate_codecs::fap::spi::SpiOpen {
                        lpoo,
                        od,
                        extra: &extra,
                    },
                    order,
                    &mut data,
                );
                let inout = part(b"SPOU").cloned().unwrap_or(SpiPart {
                    struc_id: *b"SPOU",
                    version: 1,
                    data: &[],
                });
                let r = SpiData {
                    parts: vec![
                        inout,
                        SpiPart {
                            struc_id: *b"SPOO",
                            version: input.version,
                            data: &data,
                        },
                    ],
                    ..s.clone()
                };
                let mut b = Vec::new();
                write_spi(&r, order, &mut b);
                Reply::ok(opened.hobj, b)
            }
            _ => Reply::reason(Mqrc::FUNCTION_NOT_SUPPORTED, 0, header_only(s)),
        }
    }
}

/// The attribute block after the MQOD of an SPI OPEN reply: a PCF header
/// (MQCFH: Type 8, Version 3, 8 parameters) and the eight parameters a
/// queue manager sent for a local queue in real JMS client traffic, the
/// queue's name in the string; big-endian as there. The parameters' meaning
/// is not published.
fn attributes(name: &[u8; 48]) -> Vec<u8> {
    let mut b = Vec::with_capacity(216);
    let mut int = |v: i32| b.extend_from_slice(&v.to_be_bytes());
    for v in [8, 36, 3, 0, 1, 1, 0, 0, 8] {
        int(v);
    }
    for v in [3, 16, 5, 1] {
        int(v);
    }
    for v in [4, 68, 6, 819, 48] {
        int(v);
    }
    b.extend_from_slice(name);
    for p in [7, 8, 9, 14, 10, 12] {
        for v in [3, 16, p, 0] {
            b.extend_from_slice(&i32::to_be_bytes(v));
        }
    }
    b
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_attribute_block_is_216_bytes_as_a_queue_manager_sent() {
        // 216 bytes after the MQOD of a real SPI OPEN reply (SPOO Length 516
        // = 12 + 88 + 200 + 216), the name at 72 (after the 36-byte MQCFH, a
        // 16-byte MQCFIN and the MQCFST's 20-byte header).
        let a = attributes(&padded("UNIFORM.QUEUE"));
        assert_eq!(a.len(), 216);
        assert_eq!(&a[72..85], b"UNIFORM.QUEUE");
        assert_eq!(&a[..8], &[0, 0, 0, 8, 0, 0, 0, 0x24]);
    }
}
