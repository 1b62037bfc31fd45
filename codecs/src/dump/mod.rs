//! dmpmqmsg / qload message files (IBM MQ "dmpmqmsg (queue load and unload)"; the format
//! as written and read by the qload source, ibm-messaging/mq-q-qload `qloadfnc.c`).
//!
//! A text format: a `* DMPMQMSG …` or `* QLOAD …` header, then for each message
//! either `N` (no MQMD) or `A <CODE> <value>` lines (MQMD fields, [`codes`]),
//! then `X` (hex), `S` (quoted text) or `T` (text line) lines that concatenate
//! into the message data. The data is kept as is: headers such as an MQRFH2 or
//! MQXQH appear inside the `X` hex and are decoded by [`crate::mq`].
//!
//! [`DumpReader`] reads one message at a time, so a caller can use the messages
//! before an error; [`parse_dump`] reads all of them. [`write_dump`] writes files
//! the reader (and dmpmqmsg's loader) reads back. [`hexdump`] renders bytes as
//! amqsbcg does.

pub mod codes;
mod error;
pub mod hexdump;
mod lines;
mod reader;
mod writer;

pub use error::{DumpError, DumpErrorKind};
pub use reader::{DumpReader, parse_dump};
pub use writer::{BodyStyle, WriteOptions, write_dump, write_message};

use crate::mq::Mqmd;
use bytes::Bytes;

/// Which tool's header the file carries.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DumpTool {
    /// `* QLOAD Version:… Created:…` (SupportPac MO03).
    Qload,
    /// `* DMPMQMSG …` (the product's dmpmqmsg).
    Dmpmqmsg,
}

/// The file header: its first line and the optional `* Qmgr` / `* Queue` comments.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DumpHeader {
    /// Which tool wrote it (decided by the first line).
    pub tool: DumpTool,
    /// The first line exactly as read, e.g. `* QLOAD Version:8.0 Created:Sun Nov 29 16:39:02 2026`.
    pub first_line: String,
    /// Value of `* Qmgr  = <name>`, if present.
    pub q_mgr_name: Option<String>,
    /// Value of `* Queue = <name>`, if present.
    pub q_name: Option<String>,
}

impl DumpHeader {
    /// A header as mqgate writes it: `* DMPMQMSG Version:9.0 Created:<created>`
    /// (`created` is free text, e.g. a ctime string).
    pub fn dmpmqmsg(created: &str) -> Self {
        DumpHeader {
            tool: DumpTool::Dmpmqmsg,
            first_line: format!("* DMPMQMSG Version:9.0 Created:{created}"),
            q_mgr_name: None,
            q_name: None,
        }
    }
}

/// One message of a dump file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DumpMessage {
    /// 1-based line where the message's `A`/`N` lines start (0 for a message built in memory).
    pub line: usize,
    /// The `n` of a preceding `* Index n` comment (dmpmqmsg `-di`).
    pub index: Option<u64>,
    /// The MQMD from the `A` lines (character fields in ASCII, as the file holds
    /// them; fields without a line keep [`Mqmd::default`]); `None` after `N`.
    pub md: Option<Mqmd>,
    /// The message data: all `X`/`S`/`T` lines concatenated.
    pub data: Bytes,
}

/// A whole dump file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DumpFile {
    /// The header lines.
    pub header: DumpHeader,
    /// The messages in file order.
    pub messages: Vec<DumpMessage>,
}

#[cfg(test)]
mod tests;
