//! Shared by the fuzz targets: chain options chosen by the first input byte.

use mqgate_codecs::mq::{ChainOptions, CharField};

const FORMATS: [&[u8; 8]; 8] = [
    b"MQXMIT  ",
    b"MQHRF2  ",
    b"MQHRF   ",
    b"MQDEAD  ",
    b"MQHMDE  ",
    b"MQIMS   ",
    b"MQCICS  ",
    b"MQSTR   ",
];

/// Splits `data` into chain options (from its first byte) and the message.
pub fn options(data: &[u8]) -> (ChainOptions, &[u8]) {
    let Some((&sel, rest)) = data.split_first() else {
        return (ChainOptions::default(), data);
    };
    let encoding = match sel & 0x3 {
        0 => None,
        1 => Some(273),
        2 => Some(546),
        _ => Some(785),
    };
    let format = if sel & 0x4 != 0 {
        Some(CharField(*FORMATS[usize::from(sel >> 5)]))
    } else {
        None
    };
    let ccsid = if sel & 0x8 != 0 { Some(500) } else { None };
    (
        ChainOptions {
            encoding,
            ccsid,
            format,
        },
        rest,
    )
}
