//! Reading packets: [`frame_len`] finds where a packet ends in a byte
//! stream (checking its size before anything is buffered), [`decode`]
//! reads one whole packet.

use super::error::{ErrorKind, MqttError};
use super::packet::*;
use super::props::{Context, Properties};
use super::read::{Reader, varint};
use super::reason::ReasonCode;
use bytes::Bytes;

/// The length of the packet at the start of `buf` (fixed header included)
/// once all of it is there; `Ok(None)` while more bytes are needed. A
/// packet longer than `max` bytes is refused from its fixed header alone,
/// before its body is read (5.0 3.1.2.11.4 and 4.13: 0x95 Packet too
/// large). Errors: a malformed Remaining Length (5.0 1.5.5, 2.1.4).
pub fn frame_len(buf: &[u8], max: usize) -> Result<Option<usize>, MqttError> {
    let Some(&first) = buf.first() else {
        return Ok(None);
    };
    let packet = PacketType(first >> 4);
    let (remaining, n) = match varint(&buf[1..]) {
        Ok(Some(v)) => v,
        Ok(None) => return Ok(None),
        Err(kind) => {
            return Err(MqttError {
                packet,
                offset: 1,
                kind,
            });
        }
    };
    let total = 1 + n + remaining as usize;
    if total > max {
        return Err(MqttError {
            packet,
            offset: 0,
            kind: ErrorKind::TooLarge { size: total, max },
        });
    }
    Ok((buf.len() >= total).then_some(total))
}

/// Reads one whole packet (`frame`, as [`frame_len`] delimited it) of a
/// connection at protocol level `level`; `None` before CONNECT, when only
/// a CONNECT is accepted (5.0 3.1 [MQTT-3.1.0-1]); a CONNECT once the
/// level is known is a second CONNECT ([MQTT-3.1.0-2]).
///
/// Binary fields and the PUBLISH payload are slices of `frame`.
pub fn decode(frame: Bytes, level: Option<Level>) -> Result<Packet, MqttError> {
    let first = frame.first().copied().unwrap_or(0);
    let ptype = PacketType(first >> 4);
    let flags = first & 0x0F;
    let (remaining, n) = match varint(frame.get(1..).unwrap_or(&[])) {
        Ok(Some(v)) => v,
        Ok(None) => {
            return Err(MqttError {
                packet: ptype,
                offset: frame.len(),
                kind: ErrorKind::Truncated {
                    needed: 1,
                    available: 0,
                },
            });
        }
        Err(kind) => {
            return Err(MqttError {
                packet: ptype,
                offset: 1,
                kind,
            });
        }
    };
    let body = 1 + n;
    if frame.len() != body + remaining as usize {
        let kind = if frame.len() > body + remaining as usize {
            ErrorKind::TrailingBytes {
                count: frame.len() - body - remaining as usize,
            }
        } else {
            ErrorKind::Truncated {
                needed: remaining as usize,
                available: frame.len() - body,
            }
        };
        return Err(MqttError {
            packet: ptype,
            offset: body,
            kind,
        });
    }
    let mut r = Reader::new(frame, body, ptype);
    let expected = match ptype {
        PacketType::PUBLISH => flags,
        PacketType::PUBREL | PacketType::SUBSCRIBE | PacketType::UNSUBSCRIBE => 0b0010,
        _ => 0,
    };
    if flags != expected {
        return Err(r.error_at(
            0,
            ErrorKind::Flags {
                got: flags,
                expected,
            },
        ));
    }
    let level = match (level, ptype) {
        (None, PacketType::CONNECT) => return connect(&mut r).map(Packet::Connect),
        (None, _) | (Some(_), PacketType::CONNECT) => {
            return Err(r.error_at(0, ErrorKind::NotConnect));
        }
        (Some(l), _) => l,
    };
    let v5 = level == Level::V5;
    let packet = match ptype {
        PacketType::CONNACK => Packet::Connack(connack(&mut r, v5)?),
        PacketType::PUBLISH => Packet::Publish(publish(&mut r, flags, v5)?),
        PacketType::PUBACK => Packet::Puback(ack(&mut r, v5, Context::Puback)?),
        PacketType::PUBREC => Packet::Pubrec(ack(&mut r, v5, Context::Pubrec)?),
        PacketType::PUBREL => Packet::Pubrel(ack(&mut r, v5, Context::Pubrel)?),
        PacketType::PUBCOMP => Packet::Pubcomp(ack(&mut r, v5, Context::Pubcomp)?),
        PacketType::SUBSCRIBE => Packet::Subscribe(subscribe(&mut r, v5)?),
        PacketType::SUBACK => Packet::Suback(suback(&mut r, v5, Context::Suback, true)?),
        PacketType::UNSUBSCRIBE => Packet::Unsubscribe(unsubscribe(&mut r, v5)?),
        PacketType::UNSUBACK => Packet::Unsuback(suback(&mut r, v5, Context::Unsuback, v5)?),
        PacketType::PINGREQ => Packet::Pingreq,
        PacketType::PINGRESP => Packet::Pingresp,
        PacketType::DISCONNECT => Packet::Disconnect(disconnect(&mut r, v5, Context::Disconnect)?),
        PacketType::AUTH if v5 => Packet::Auth(disconnect(&mut r, v5, Context::Auth)?),
        _ => return Err(r.error_at(0, ErrorKind::ReservedPacketType)),
    };
    r.finish()?;
    Ok(packet)
}

fn connect(r: &mut Reader) -> Result<Connect, MqttError> {
    let at = r.pos();
    let name = r.string()?;
    let level_byte = r.u8()?;
    let level = match (name.as_str(), level_byte) {
        ("MQTT", 4) => Level::V311,
        ("MQTT", 5) => Level::V5,
        _ => {
            return Err(r.error_at(
                at,
                ErrorKind::UnsupportedProtocol {
                    name,
                    level: level_byte,
                },
            ));
        }
    };
    let flags_at = r.pos();
    let flags = r.u8()?;
    if flags & 0x01 != 0 {
        return Err(r.error_at(flags_at, ErrorKind::ConnectReservedFlag));
    }
    let will_flag = flags & 0x04 != 0;
    let will_qos = (flags >> 3) & 0x03;
    let will_retain = flags & 0x20 != 0;
    let has_password = flags & 0x40 != 0;
    let has_user = flags & 0x80 != 0;
    if (!will_flag && (will_qos != 0 || will_retain)) || will_qos == 3 {
        return Err(r.error_at(flags_at, ErrorKind::WillFlags { flags }));
    }
    if level == Level::V311 && has_password && !has_user {
        return Err(r.error_at(flags_at, ErrorKind::PasswordWithoutUserName));
    }
    let keep_alive = r.u16()?;
    let v5 = level == Level::V5;
    let properties = props(r, v5, Context::Connect)?;
    let client_id = r.string()?;
    let will = if will_flag {
        let properties = props(r, v5, Context::Will)?;
        let topic = r.string()?;
        let payload = r.binary()?;
        Some(Will {
            qos: QoS::from_bits(will_qos).unwrap_or(QoS::AtMostOnce),
            retain: will_retain,
            properties,
            topic,
            payload,
        })
    } else {
        None
    };
    let user_name = if has_user { Some(r.string()?) } else { None };
    let password = if has_password {
        Some(r.binary()?)
    } else {
        None
    };
    r.finish()?;
    Ok(Connect {
        level,
        clean_start: flags & 0x02 != 0,
        keep_alive,
        properties,
        client_id,
        will,
        user_name,
        password,
    })
}

fn props(r: &mut Reader, v5: bool, ctx: Context) -> Result<Properties, MqttError> {
    if v5 {
        Properties::read(r, ctx)
    } else {
        Ok(Properties::new())
    }
}

fn packet_id(r: &mut Reader) -> Result<u16, MqttError> {
    let at = r.pos();
    let id = r.u16()?;
    if id == 0 {
        return Err(r.error_at(at, ErrorKind::PacketIdZero));
    }
    Ok(id)
}

fn connack(r: &mut Reader, v5: bool) -> Result<Connack, MqttError> {
    let at = r.pos();
    let ack_flags = r.u8()?;
    if ack_flags & 0xFE != 0 {
        // 5.0 3.2.2.1 [MQTT-3.2.2-1]: bits 7-1 are reserved, 0.
        return Err(r.error_at(
            at,
            ErrorKind::Flags {
                got: ack_flags,
                expected: ack_flags & 1,
            },
        ));
    }
    let code = ReasonCode(r.u8()?);
    let properties = props(r, v5, Context::Connack)?;
    Ok(Connack {
        session_present: ack_flags & 1 != 0,
        code,
        properties,
    })
}

fn publish(r: &mut Reader, flags: u8, v5: bool) -> Result<Publish, MqttError> {
    let bits = (flags >> 1) & 0x03;
    let Some(qos) = QoS::from_bits(bits) else {
        return Err(r.error_at(0, ErrorKind::InvalidQos(bits)));
    };
    let dup = flags & 0x08 != 0;
    if dup && qos == QoS::AtMostOnce {
        return Err(r.error_at(0, ErrorKind::DupWithQos0));
    }
    let topic = r.string()?;
    let packet_id = if qos == QoS::AtMostOnce {
        None
    } else {
        Some(packet_id(r)?)
    };
    let properties = props(r, v5, Context::Publish)?;
    let payload = r.rest();
    Ok(Publish {
        dup,
        qos,
        retain: flags & 0x01 != 0,
        topic,
        packet_id,
        properties,
        payload,
    })
}

fn ack(r: &mut Reader, v5: bool, ctx: Context) -> Result<Ack, MqttError> {
    let packet_id = packet_id(r)?;
    if !v5 || r.is_empty() {
        return Ok(Ack {
            packet_id,
            reason: None,
            properties: None,
        });
    }
    let reason = Some(ReasonCode(r.u8()?));
    let properties = if r.is_empty() {
        None
    } else {
        Some(Properties::read(r, ctx)?)
    };
    Ok(Ack {
        packet_id,
        reason,
        properties,
    })
}

fn subscribe(r: &mut Reader, v5: bool) -> Result<Subscribe, MqttError> {
    let packet_id = packet_id(r)?;
    let properties = props(r, v5, Context::Subscribe)?;
    let mut filters = Vec::new();
    while !r.is_empty() {
        let filter = r.string()?;
        let at = r.pos();
        let byte = r.u8()?;
        let reserved = if v5 { 0xC0 } else { 0xFC };
        if byte & reserved != 0 {
            return Err(r.error_at(at, ErrorKind::SubscriptionOptions { byte }));
        }
        let Some(qos) = QoS::from_bits(byte & 0x03) else {
            return Err(r.error_at(at, ErrorKind::InvalidQos(byte & 0x03)));
        };
        let retain_handling = (byte >> 4) & 0x03;
        if retain_handling == 3 {
            return Err(r.error_at(at, ErrorKind::RetainHandling3));
        }
        filters.push((
            filter,
            SubscriptionOptions {
                qos,
                no_local: byte & 0x04 != 0,
                retain_as_published: byte & 0x08 != 0,
                retain_handling,
            },
        ));
    }
    if filters.is_empty() {
        return Err(r.error(ErrorKind::NoTopicFilter));
    }
    Ok(Subscribe {
        packet_id,
        properties,
        filters,
    })
}

fn suback(r: &mut Reader, v5: bool, ctx: Context, codes: bool) -> Result<Suback, MqttError> {
    let packet_id = packet_id(r)?;
    let properties = props(r, v5, ctx)?;
    let mut list = Vec::new();
    while codes && !r.is_empty() {
        let at = r.pos();
        let code = r.u8()?;
        if !v5 && !matches!(code, 0x00 | 0x01 | 0x02 | 0x80) {
            return Err(r.error_at(at, ErrorKind::ReservedReturnCode { code }));
        }
        list.push(ReasonCode(code));
    }
    Ok(Suback {
        packet_id,
        properties,
        codes: list,
    })
}

fn unsubscribe(r: &mut Reader, v5: bool) -> Result<Unsubscribe, MqttError> {
    let packet_id = packet_id(r)?;
    let properties = props(r, v5, Context::Unsubscribe)?;
    let mut filters = Vec::new();
    while !r.is_empty() {
        filters.push(r.string()?);
    }
    if filters.is_empty() {
        return Err(r.error(ErrorKind::NoTopicFilter));
    }
    Ok(Unsubscribe {
        packet_id,
        properties,
        filters,
    })
}

fn disconnect(r: &mut Reader, v5: bool, ctx: Context) -> Result<Disconnect, MqttError> {
    if !v5 || r.is_empty() {
        return Ok(Disconnect {
            reason: None,
            properties: None,
        });
    }
    let reason = Some(ReasonCode(r.u8()?));
    let properties = if r.is_empty() {
        None
    } else {
        Some(Properties::read(r, ctx)?)
    };
    Ok(Disconnect { reason, properties })
}
