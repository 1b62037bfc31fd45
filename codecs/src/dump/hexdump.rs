//! amqsbcg-style hex dump: offset, hex in 2-byte groups, ASCII and EBCDIC columns.
//!
//! The layout of IBM's amqsbcg browse sample output (lines such as `00000000:
//! 5246 4820 0000 0002 …   'RFH ....'`); mqgate adds an EBCDIC column. Both text
//! columns show printable ASCII characters only, anything else as `.`. The EBCDIC
//! column reads the bytes as CCSID 500 (EBCDIC International, table from
//! [`crate::ccsid`]), so `<`, `>`, `(`, `=` … show too, not only MQ's invariant
//! characters.

use crate::ccsid::Ccsid;
use crate::mq::Charset;
use std::fmt::Write;

/// The CCSID the EBCDIC column is read in: 500, EBCDIC International.
pub const EBCDIC_COLUMN_CCSID: i32 = 500;

/// Unicode of each byte in CCSID 500; `None` only if the table were missing,
/// in which case the column falls back to MQ's invariant characters.
fn ebcdic_table() -> Option<&'static [u16; 256]> {
    Ccsid::new(EBCDIC_COLUMN_CCSID)
        .ok()?
        .sbcs_table()
        .map(|t| &t.to_unicode)
}

/// Bytes per line.
pub const BYTES_PER_LINE: usize = 16;

/// Renders `data` as hex dump lines; offsets start at `base_offset` (e.g. the
/// offset of the body inside the message). Empty data gives an empty string.
pub fn hex_dump(data: &[u8], base_offset: usize) -> String {
    let mut out = String::new();
    write_hex_dump(&mut out, data, base_offset);
    out
}

/// Appends the lines of [`hex_dump`] to `out`, each ending in `\n`:
/// `OOOOOOOO:  HHHH HHHH … HHHH  'ascii'  'ebcdic'`, the offset in 8 uppercase hex
/// digits, the text columns padded so that the EBCDIC column lines up.
pub fn write_hex_dump(out: &mut String, data: &[u8], base_offset: usize) {
    let table = ebcdic_table();
    for (n, chunk) in data.chunks(BYTES_PER_LINE).enumerate() {
        let _ = write!(out, "{:08X}: ", base_offset + n * BYTES_PER_LINE);
        for i in 0..BYTES_PER_LINE {
            if i % 2 == 0 {
                out.push(' ');
            }
            match chunk.get(i) {
                Some(b) => {
                    let _ = write!(out, "{b:02X}");
                }
                None => out.push_str("  "),
            }
        }
        out.push_str("  '");
        out.extend(chunk.iter().map(|&b| ascii_char(b)));
        out.push('\'');
        for _ in chunk.len()..BYTES_PER_LINE {
            out.push(' ');
        }
        out.push_str("  '");
        out.extend(chunk.iter().map(|&b| ebcdic_in(table, b)));
        out.push_str("'\n");
    }
}

/// The ASCII column's character for `b`: printable ASCII (0x20-0x7E) as is, else `.`.
pub fn ascii_char(b: u8) -> char {
    if (0x20..=0x7E).contains(&b) {
        char::from(b)
    } else {
        '.'
    }
}

/// The EBCDIC column's character for `b`: the CCSID 500 character when it is
/// printable ASCII, else `.`.
pub fn ebcdic_char(b: u8) -> char {
    ebcdic_in(ebcdic_table(), b)
}

fn ebcdic_in(table: Option<&[u16; 256]>, b: u8) -> char {
    let c = match table {
        Some(t) => char::from_u32(u32::from(t[usize::from(b)])).unwrap_or('.'),
        None => Charset::Ebcdic.decode_byte(b),
    };
    if c.is_ascii_graphic() || c == ' ' {
        c
    } else {
        '.'
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rfh2_prefix_renders_like_amqsbcg_with_an_ebcdic_column() {
        // pymqi's test message single_rfh2.dat starts 52 46 48 20 | 00 00 00 02 | 00 00 01 1C |
        // 00 00 01 11 (StrucId "RFH ", Version 2, StrucLength 284, Encoding 273).
        let bytes = [
            0x52, 0x46, 0x48, 0x20, 0, 0, 0, 2, 0, 0, 1, 0x1C, 0, 0, 1, 0x11, 0x4D, 0x51,
        ];
        let text = hex_dump(&bytes, 0);
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(
            lines[0],
            "00000000:  5246 4820 0000 0002 0000 011C 0000 0111  'RFH ............'  '................'"
        );
        // 0x4D 0x51 are "MQ" in ASCII; in CCSID 500 they are '(' and 'é' (not ASCII: '.')
        // (IBM500 table, as glibc iconv and ICU map it).
        assert_eq!(
            lines[1],
            "00000010:  4D51                                     'MQ'                '(.'"
        );
    }

    #[test]
    fn ebcdic_column_shows_invariant_characters() {
        // EBCDIC StrucIds (the Wireshark MQ dissector, packet-mq.c): "XQH " is E7 D8 C8
        // 40; "MD  " is D4 C4 40 40.
        let text = hex_dump(&[0xE7, 0xD8, 0xC8, 0x40, 0xD4, 0xC4, 0x40, 0x40], 0x1C0);
        assert_eq!(
            text,
            "000001C0:  E7D8 C840 D4C4 4040                      '...@..@@'          'XQH MD  '\n"
        );
    }

    #[test]
    fn nul_bytes_and_high_bytes_are_dots() {
        assert_eq!(ascii_char(0x00), '.');
        assert_eq!(ascii_char(0x7F), '.');
        assert_eq!(ascii_char(0xC1), '.');
        assert_eq!(ebcdic_char(0xC1), 'A');
        assert_eq!(ebcdic_char(0x00), '.');
        // CCSID 500, not 037: 0x5A is ']' and 0x4F '!' (037 has '!' and '|'); 0x4C '<', 0x6E '>'.
        assert_eq!(
            [0x5A, 0x4F, 0x4C, 0x6E, 0x7E].map(ebcdic_char),
            [']', '!', '<', '>', '=']
        );
        assert_eq!(hex_dump(&[], 0), "");
    }
}
