//! A tiny pcap reader for tests: the TCP payloads of each connection in a
//! capture, both directions, de-duplicated by sequence number (the MQ
//! capture shows each packet twice), in the order they were captured.
//! Link types: Ethernet (1), Linux cooked capture v1 (113) and v2 (276);
//! IPv4 only. Format: the pcap file format of libpcap ("pcap-savefile"),
//! classic microsecond and nanosecond magic numbers, either byte order.

#![allow(dead_code)]

use std::collections::BTreeMap;

/// One direction of a TCP connection: the bytes in sequence order (lost
/// bytes left out) with the frame each byte arrived in.
#[derive(Debug, Default)]
pub struct Direction {
    pub data: Vec<u8>,
    /// (offset into `data`, bytes the capture lost just before it).
    pub gaps: Vec<(usize, u32)>,
    /// (end offset into `data`, frame number) per packet kept, ascending.
    pub arrivals: Vec<(usize, u32)>,
}

impl Direction {
    /// The frame number in which byte `offset` arrived.
    pub fn frame_of(&self, offset: usize) -> u32 {
        self.arrivals
            .iter()
            .find(|(end, _)| offset < *end)
            .map(|(_, f)| *f)
            .unwrap_or(0)
    }

    /// Whether the capture lost bytes strictly inside `start..end`.
    pub fn gap_inside(&self, start: usize, end: usize) -> bool {
        self.gaps.iter().any(|(at, _)| *at > start && *at < end)
    }
}

/// A TCP connection: the side whose packet the capture shows first is the
/// client.
#[derive(Debug)]
pub struct Connection {
    pub client: ([u8; 4], u16),
    pub server: ([u8; 4], u16),
    /// Client to server.
    pub to_server: Direction,
    /// Server to client.
    pub to_client: Direction,
}

struct Packet {
    frame: u32,
    seq: u32,
    payload: Vec<u8>,
}

#[derive(Default)]
struct Half {
    isn: Option<u32>,
    packets: Vec<Packet>,
}

/// The TCP connections of capture `pcap`, in the order their first packet
/// appears. Panics on a file that is not a pcap of a supported link type.
pub fn connections(pcap: &[u8]) -> Vec<Connection> {
    assert!(pcap.len() >= 24, "pcap global header");
    let magic = &pcap[0..4];
    let le = match magic {
        [0xD4, 0xC3, 0xB2, 0xA1] | [0x4D, 0x3C, 0xB2, 0xA1] => true,
        [0xA1, 0xB2, 0xC3, 0xD4] | [0xA1, 0xB2, 0x3C, 0x4D] => false,
        _ => panic!("not a pcap file"),
    };
    let u32at = |b: &[u8], o: usize| {
        let a: [u8; 4] = b[o..o + 4].try_into().unwrap();
        if le {
            u32::from_le_bytes(a)
        } else {
            u32::from_be_bytes(a)
        }
    };
    let link = u32at(pcap, 20);
    let mut halves: BTreeMap<([u8; 4], u16, [u8; 4], u16), Half> = BTreeMap::new();
    let mut order: Vec<([u8; 4], u16, [u8; 4], u16)> = Vec::new();
    let mut off = 24;
    let mut frame = 0u32;
    while off + 16 <= pcap.len() {
        let incl = u32at(pcap, off + 8) as usize;
        let pkt = &pcap[off + 16..(off + 16 + incl).min(pcap.len())];
        off += 16 + incl;
        frame += 1;
        let (ethertype, l3) = match link {
            1 if pkt.len() >= 14 => (u16::from_be_bytes([pkt[12], pkt[13]]), &pkt[14..]),
            113 if pkt.len() >= 16 => (u16::from_be_bytes([pkt[14], pkt[15]]), &pkt[16..]),
            276 if pkt.len() >= 20 => (u16::from_be_bytes([pkt[0], pkt[1]]), &pkt[20..]),
            1 | 113 | 276 => continue,
            other => panic!("link type {other} not supported"),
        };
        if ethertype != 0x0800 || l3.len() < 20 || l3[9] != 6 {
            continue;
        }
        let ihl = usize::from(l3[0] & 0x0F) * 4;
        let total = usize::from(u16::from_be_bytes([l3[2], l3[3]])).min(l3.len());
        if total < ihl + 20 {
            continue;
        }
        let src: [u8; 4] = l3[12..16].try_into().unwrap();
        let dst: [u8; 4] = l3[16..20].try_into().unwrap();
        let tcp = &l3[ihl..total];
        let sport = u16::from_be_bytes([tcp[0], tcp[1]]);
        let dport = u16::from_be_bytes([tcp[2], tcp[3]]);
        let seq = u32::from_be_bytes(tcp[4..8].try_into().unwrap());
        let doff = usize::from(tcp[12] >> 4) * 4;
        let syn = tcp[13] & 0x02 != 0;
        let key = (src, sport, dst, dport);
        let h = halves.entry(key).or_insert_with(|| {
            order.push(key);
            Half::default()
        });
        if syn {
            h.isn = Some(seq);
        }
        if tcp.len() > doff {
            h.packets.push(Packet {
                frame,
                seq,
                payload: tcp[doff..].to_vec(),
            });
        }
    }
    let mut out = Vec::new();
    let mut done = std::collections::HashSet::new();
    for key in order {
        let (src, sport, dst, dport) = key;
        let back = (dst, dport, src, sport);
        if done.contains(&key) || done.contains(&back) {
            continue;
        }
        done.insert(key);
        let a = halves.remove(&key).unwrap_or_default();
        let b = halves.remove(&back).unwrap_or_default();
        // The side whose packet comes first (its SYN) is the client.
        let (client_key, c, s) = (key, a, b);
        out.push(Connection {
            client: (client_key.0, client_key.1),
            server: (client_key.2, client_key.3),
            to_server: direction(c),
            to_client: direction(s),
        });
    }
    out
}

fn direction(h: Half) -> Direction {
    let mut d = Direction::default();
    let Some(isn) = h
        .isn
        .or_else(|| h.packets.iter().map(|p| p.seq.wrapping_sub(1)).min())
    else {
        return d;
    };
    // Relative sequence numbers, sorted; the first capture of each range wins.
    let mut pk: Vec<(u64, u32, Vec<u8>)> = h
        .packets
        .into_iter()
        .map(|p| {
            (
                u64::from(p.seq.wrapping_sub(isn).wrapping_sub(1)),
                p.frame,
                p.payload,
            )
        })
        .collect();
    pk.sort_by_key(|(rel, frame, _)| (*rel, *frame));
    let mut next: u64 = 0;
    for (rel, frame, payload) in pk {
        let end = rel + payload.len() as u64;
        if end <= next {
            continue;
        }
        if rel > next {
            d.gaps.push((d.data.len(), (rel - next) as u32));
            next = rel;
        }
        let skip = (next - rel) as usize;
        d.data.extend_from_slice(&payload[skip..]);
        next = end;
        d.arrivals.push((d.data.len(), frame));
    }
    d.arrivals.sort_by_key(|(end, _)| *end);
    d
}
