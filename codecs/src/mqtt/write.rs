//! Writing the data representations of MQTT (5.0 1.5; 3.1.1 1.5).

/// Appends `v` as a Variable Byte Integer (5.0 1.5.5), in the fewest bytes.
/// Values above [`super::read::VARINT_MAX`] are the caller's error; they are
/// written as that maximum.
pub fn varint(out: &mut Vec<u8>, v: u32) {
    let mut v = v.min(super::read::VARINT_MAX);
    loop {
        let mut byte = (v & 0x7F) as u8;
        v >>= 7;
        if v > 0 {
            byte |= 0x80;
        }
        out.push(byte);
        if v == 0 {
            return;
        }
    }
}

/// The length of `v` as a Variable Byte Integer, in bytes.
pub fn varint_len(v: u32) -> usize {
    match v {
        0..=127 => 1,
        128..=16_383 => 2,
        16_384..=2_097_151 => 3,
        _ => 4,
    }
}

pub fn u16(out: &mut Vec<u8>, v: u16) {
    out.extend_from_slice(&v.to_be_bytes());
}

pub fn u32(out: &mut Vec<u8>, v: u32) {
    out.extend_from_slice(&v.to_be_bytes());
}

/// Binary Data (5.0 1.5.6): at most 65,535 bytes are written (the caller
/// keeps fields within that).
pub fn binary(out: &mut Vec<u8>, b: &[u8]) {
    let n = b.len().min(usize::from(u16::MAX));
    u16(out, n as u16);
    out.extend_from_slice(&b[..n]);
}

/// A UTF-8 Encoded String (5.0 1.5.4), cut to 65,535 bytes at a character
/// boundary when longer.
pub fn string(out: &mut Vec<u8>, s: &str) {
    let mut n = s.len().min(usize::from(u16::MAX));
    while !s.is_char_boundary(n) {
        n -= 1;
    }
    binary(out, &s.as_bytes()[..n]);
}
