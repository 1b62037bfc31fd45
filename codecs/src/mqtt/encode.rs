//! Writing packets: [`encode`] appends one packet, fixed header first, in
//! the form of the connection's protocol level. A packet read by
//! `decode` is written back byte for byte.

use super::packet::*;
use super::props::Properties;
use super::write;

/// Appends `p` to `out` as a packet of a connection at `level`. The fields
/// MQTT 3.1.1 lacks (properties, reason codes other than CONNACK's and
/// SUBACK's) are not written at that level.
pub fn encode(p: &Packet, level: Level, out: &mut Vec<u8>) {
    let v5 = level == Level::V5;
    let mut body = Vec::new();
    let mut flags = 0u8;
    let mut payload: &[u8] = &[];
    match p {
        Packet::Connect(c) => connect(c, &mut body),
        Packet::Connack(c) => {
            body.push(c.session_present as u8);
            body.push(c.code.0);
            if v5 {
                c.properties.write(&mut body);
            }
        }
        Packet::Publish(pb) => {
            flags = (pb.dup as u8) << 3 | (pb.qos as u8) << 1 | pb.retain as u8;
            write::string(&mut body, &pb.topic);
            if let Some(id) = pb.packet_id {
                write::u16(&mut body, id);
            }
            if v5 {
                pb.properties.write(&mut body);
            }
            payload = &pb.payload;
        }
        Packet::Puback(a) | Packet::Pubrec(a) | Packet::Pubcomp(a) => ack(a, v5, &mut body),
        Packet::Pubrel(a) => {
            flags = 0b0010;
            ack(a, v5, &mut body);
        }
        Packet::Subscribe(s) => {
            flags = 0b0010;
            write::u16(&mut body, s.packet_id);
            if v5 {
                s.properties.write(&mut body);
            }
            for (f, o) in &s.filters {
                write::string(&mut body, f);
                body.push(if v5 { o.byte() } else { o.qos as u8 });
            }
        }
        Packet::Suback(s) => {
            write::u16(&mut body, s.packet_id);
            if v5 {
                s.properties.write(&mut body);
            }
            for c in &s.codes {
                body.push(if v5 { c.0 } else { c.suback_v3() });
            }
        }
        Packet::Unsubscribe(u) => {
            flags = 0b0010;
            write::u16(&mut body, u.packet_id);
            if v5 {
                u.properties.write(&mut body);
            }
            for f in &u.filters {
                write::string(&mut body, f);
            }
        }
        Packet::Unsuback(s) => {
            write::u16(&mut body, s.packet_id);
            if v5 {
                s.properties.write(&mut body);
                body.extend(s.codes.iter().map(|c| c.0));
            }
        }
        Packet::Pingreq | Packet::Pingresp => {}
        Packet::Disconnect(d) | Packet::Auth(d) => {
            if v5 {
                optional_tail(d.reason.map(|r| r.0), d.properties.as_ref(), &mut body);
            }
        }
    }
    out.push(p.packet_type().0 << 4 | flags);
    write::varint(out, (body.len() + payload.len()) as u32);
    out.extend_from_slice(&body);
    out.extend_from_slice(payload);
}

/// The size in bytes of `p` written at `level`.
pub fn encoded_len(p: &Packet, level: Level) -> usize {
    if let Packet::Publish(pb) = p {
        // Without copying the payload.
        let head = 2 + pb.topic.len() + pb.packet_id.map_or(0, |_| 2) + {
            if level == Level::V5 {
                let n = pb.properties.len();
                write::varint_len(n as u32) + n
            } else {
                0
            }
        };
        let remaining = head + pb.payload.len();
        return 1 + write::varint_len(remaining.min(u32::MAX as usize) as u32) + remaining;
    }
    let mut out = Vec::new();
    encode(p, level, &mut out);
    out.len()
}

fn connect(c: &Connect, body: &mut Vec<u8>) {
    let v5 = c.level == Level::V5;
    write::string(body, "MQTT");
    body.push(c.level.byte());
    let mut flags = (c.clean_start as u8) << 1;
    if let Some(w) = &c.will {
        flags |= 0x04 | (w.qos as u8) << 3 | (w.retain as u8) << 5;
    }
    if c.password.is_some() {
        flags |= 0x40;
    }
    if c.user_name.is_some() {
        flags |= 0x80;
    }
    body.push(flags);
    write::u16(body, c.keep_alive);
    if v5 {
        c.properties.write(body);
    }
    write::string(body, &c.client_id);
    if let Some(w) = &c.will {
        if v5 {
            w.properties.write(body);
        }
        write::string(body, &w.topic);
        write::binary(body, &w.payload);
    }
    if let Some(u) = &c.user_name {
        write::string(body, u);
    }
    if let Some(p) = &c.password {
        write::binary(body, p);
    }
}

fn ack(a: &Ack, v5: bool, body: &mut Vec<u8>) {
    write::u16(body, a.packet_id);
    if v5 {
        optional_tail(a.reason.map(|r| r.0), a.properties.as_ref(), body);
    }
}

/// A reason code and properties that the packet may end before (5.0
/// 3.4.2.1, 3.14.2.1): properties imply the reason code (0x00 if absent).
fn optional_tail(reason: Option<u8>, props: Option<&Properties>, body: &mut Vec<u8>) {
    match (reason, props) {
        (None, None) => {}
        (r, None) => body.push(r.unwrap_or(0)),
        (r, Some(p)) => {
            body.push(r.unwrap_or(0));
            p.write(body);
        }
    }
}
