//! Fuzz the TPQCTL decoder (Oracle Tuxedo "tpenqueue(3c)"; the structure
//! comes from the client) and the TEDG flag mapping it feeds. The first
//! byte picks the layout: data model, byte order, TMQNAMELEN (15, 127 or
//! another length). A finding is a panic or a broken invariant:
//!
//! - input shorter than sizeof(TPQCTL) is `TooShort` with both lengths;
//! - a decoded TPQCTL encodes back to exactly its sizeof(TPQCTL) bytes;
//! - the flag mapping (BEA Tuxedo "Using the BEA Tuxedo TOP END Domain
//!   Gateway", Client Flag Mapping) answers every flag and time value with
//!   parameters or a failure that has a tperrno.
#![no_main]

use libfuzzer_sys::fuzz_target;
use mqgate_codecs::tux::tedg::map_flags;
use mqgate_codecs::tux::tpqctl::{
    Abi, Endian, TMQNAMELEN, TMQNAMELEN_LONG, TpFlags, Tpqctl, TpqctlError, TpqctlLayout,
};

fuzz_target!(|data: &[u8]| {
    let [sel, call, rest @ ..] = data else {
        return;
    };
    let layout = TpqctlLayout {
        abi: if sel & 1 == 0 { Abi::Lp64 } else { Abi::Ilp32 },
        endian: if sel & 2 == 0 {
            Endian::Big
        } else {
            Endian::Little
        },
        qname_len: match sel >> 2 {
            0..=31 => TMQNAMELEN,
            32..=47 => TMQNAMELEN_LONG,
            n => usize::from(n - 48),
        },
    };
    let size = layout.offsets().size;
    match Tpqctl::decode(rest, &layout) {
        Err(TpqctlError::TooShort { needed, got }) => {
            assert!(rest.len() < size && needed == size && got == rest.len());
        }
        Err(e) => panic!("decode failed other than TooShort: {e}"),
        Ok(ctl) => {
            let mut out = Vec::new();
            ctl.encode(&layout, &mut out)
                .expect("a decoded TPQCTL encodes");
            assert!(out == rest[..size], "encode(decode(b)) changed the bytes");
            assert!(ctl.replyqueue_name().len() <= layout.qname_len + 1);
            let call_flags = TpFlags(i64::from(*call) << ((call & 7) * 4));
            match map_flags(ctl.flags, ctl.deq_time, call_flags) {
                Ok(_) => {}
                Err(f) => {
                    let _ = f.to_string();
                    let _ = f.tp_error();
                }
            }
        }
    }
});
