//! Fuzz the PAMS message header mqgate keeps in front of every MessageQ
//! message on its queues (`pams::envelope`, docs/messageq.md "PAMS messages
//! on mqgate queues") and the `group.queue` address text of the PAMS API:
//! no panic; a refused header names an offset inside the data (0 for data
//! shorter than the header); an accepted header has a priority of 0 to 99
//! and an endian of 0 or 1, and it and its message area are written back
//! byte for byte; the show buffer made from it encodes and
//! reads back to the same fields in both byte orders; an address text that
//! parses prints back as itself once leading zeros are dropped, and a
//! refused one names a column inside the text (one past it for "expected
//! more").
#![no_main]

use libfuzzer_sys::fuzz_target;
use mqgate_codecs::pams::{Endian, PamsHeader, QAddress, ShowBuffer};

fuzz_target!(|data: &[u8]| {
    match PamsHeader::split(data) {
        Err(e) => {
            assert!(
                e.offset < data.len() || e.offset == 0,
                "{e}: offset outside the {}-byte data",
                data.len()
            );
            let _ = e.to_string();
        }
        Ok((header, area)) => {
            assert_eq!(area.len(), data.len() - PamsHeader::SIZE);
            assert!((0..=99).contains(&header.priority), "{header:?}");
            assert!(header.area_endian().is_some(), "{header:?}");
            assert_eq!(header.with_area(area), data);
            let _ = (header.area_endian(), header.reply_to());
            let shown = header.show_buffer(header.original_target, area.len());
            for endian in [Endian::Big, Endian::Little] {
                let bytes = shown
                    .encode_prefix(endian, ShowBuffer::SIZE)
                    .expect("a whole show buffer always encodes");
                assert_eq!(bytes.len(), ShowBuffer::SIZE);
                let back = ShowBuffer::decode_prefix(&bytes, endian)
                    .expect("an encoded show buffer reads back");
                assert_eq!(back, shown);
            }
        }
    }
    if let Ok(text) = std::str::from_utf8(data) {
        match QAddress::parse(text) {
            Ok(address) => {
                let printed = address.to_string();
                assert_eq!(QAddress::parse(&printed), Ok(address));
            }
            Err(e) => {
                assert!(
                    e.column >= 1 && e.column <= text.chars().count() + 1,
                    "{e}: column outside the text"
                );
                let _ = e.to_string();
            }
        }
    }
});
