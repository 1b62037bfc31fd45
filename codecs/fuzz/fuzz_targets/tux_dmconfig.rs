//! Fuzz the DMCONFIG/UBBCONFIG text reader (`tux::cfgtext`) and DMCONFIG
//! checks (`tux::dmconfig`; Oracle Tuxedo "DMCONFIG(5)", "UBBCONFIG(5)";
//! docs/tuxedo.md). Invalid UTF-8 is read lossily, as text. A finding is a
//! panic or a broken invariant:
//!
//! - every error position is a place in the text; an unterminated quote is
//!   named at its `"`, a bad section name at its `*`;
//! - every token, section, entry and parameter position is where its text
//!   stands: `*NAME` for a section, the word (or its opening `"`) for an
//!   entry name or keyword;
//! - a DMCONFIG that is accepted plans a tpenqueue (no flags, an empty
//!   buffer of the QNAME's INBUFTYPE or CARRAY) for every QSPACE × QNAME
//!   pair it holds, naming the entries' RTQ queue and TOP END service.
#![no_main]

use libfuzzer_sys::fuzz_target;
use mqgate_codecs::tux::buftype::BufferType;
use mqgate_codecs::tux::cfgtext::{ConfigText, ConfigTextErrorKind, Pos, Token, tokenize};
use mqgate_codecs::tux::dmconfig::DmConfig;
use mqgate_codecs::tux::enqueue::{EnqueueRequest, plan_enqueue};
use mqgate_codecs::tux::fml32::Fml32Buffer;
use mqgate_codecs::tux::tpqctl::NamedFlags;

mod text_pos;

use text_pos::Lines;

fn rest<'a>(text: &Lines<'a>, pos: Pos) -> &'a str {
    text.at(pos.line, pos.column)
        .unwrap_or_else(|| panic!("position {pos} is not in the text"))
}

/// The text at `pos` starts with the word, or with `"` when it was quoted.
fn word_at(text: &Lines<'_>, pos: Pos, word: &str, quoted: bool) {
    let r = rest(text, pos);
    if quoted {
        assert!(r.starts_with('"'), "{pos}: no quote for {word:?}");
    } else {
        assert!(r.starts_with(word), "{pos}: {word:?} is not there");
    }
}

fuzz_target!(|data: &[u8]| {
    let source = String::from_utf8_lossy(data);
    let text = &Lines::new(&source);
    match tokenize(&source) {
        Ok(tokens) => {
            let mut last: Option<Pos> = None;
            for (pos, t) in &tokens {
                assert!(last < Some(*pos), "token positions not increasing at {pos}");
                last = Some(*pos);
                match t {
                    Token::Section(name) => word_at(text, *pos, &format!("*{name}"), false),
                    Token::Word { text: w, quoted } => word_at(text, *pos, w, *quoted),
                    Token::Equals => assert!(rest(text, *pos).starts_with('=')),
                }
            }
        }
        Err(e) => {
            let r = rest(text, e.pos);
            match e.kind {
                ConfigTextErrorKind::UnterminatedQuote => assert!(r.starts_with('"'), "{e}"),
                ConfigTextErrorKind::BadSectionName(_) => assert!(r.starts_with('*'), "{e}"),
                _ => {}
            }
        }
    }
    match ConfigText::parse(&source) {
        Err(e) => {
            let _ = rest(text, e.pos);
            let _ = e.to_string();
        }
        Ok(cfg) => {
            for s in &cfg.sections {
                word_at(text, s.pos, &format!("*{}", s.name), false);
                for p in &s.params {
                    word_at(text, p.pos, &p.key, false);
                }
                for e in &s.entries {
                    word_at(text, e.pos, &e.name, e.quoted);
                    for p in e.params.iter().chain(&e.inherited) {
                        word_at(text, p.pos, &p.key, false);
                    }
                }
            }
        }
    }
    match DmConfig::parse(&source) {
        Err(e) => {
            if let Some(pos) = e.pos {
                let _ = rest(text, pos);
            }
            let _ = e.to_string();
        }
        Ok(cfg) => {
            let mut fml = Vec::new();
            Fml32Buffer::new()
                .encode(&mut fml)
                .expect("an empty buffer encodes");
            let flags = NamedFlags::default();
            for qs in cfg.remote_services.qspaces.iter().take(8) {
                for qn in cfg.remote_services.qnames.iter().take(8) {
                    let buftype = qn.inbuftype.unwrap_or(BufferType::Carray);
                    let data: &[u8] = if buftype == BufferType::Fml32 {
                        &fml
                    } else {
                        b""
                    };
                    let req = EnqueueRequest {
                        qspace: &qs.name,
                        qname: &qn.name,
                        flags: &flags,
                        deq_time: 0,
                        buftype: buftype.name(),
                        data,
                    };
                    let put = plan_enqueue(&cfg, &req)
                        .unwrap_or_else(|f| panic!("{} / {}: {f}", qs.name, qn.name));
                    assert_eq!(put.queue.name, qs.rtq_name);
                    assert_eq!(put.service, qn.service);
                }
            }
        }
    }
});
