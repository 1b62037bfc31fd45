//! The MessageQ group initialization file as a typed model (BEA MessageQ 5.0
//! Programmer's Guide, "Broadcasting Messages", Listings 3-1 to 3-3; BEA
//! MessageQ Configuration Guide; docs/messageq.md "Group initialization file").
//!
//! The file is a series of sections, each opened by `%NAME` and closed by
//! `%EOS`; entries are whitespace-separated columns, `.` stands for an empty
//! (default) column, `!` starts a comment to the end of the line, and a line
//! whose first non-blank character is `*` is a comment. mqgate reads:
//!
//! - `%PROFILE`: `KEY VALUE` lines; `ENABLE_SBS YES|NO` (default YES).
//!   `ENABLE_MRS` and `ENABLE_JRN` are accepted with `NO` only.
//! - `%QCT`: the queue configuration table, twelve columns (name, number,
//!   byte quota, message quota, quota enable ALL/MSG/BYTE/NONE, UCB send,
//!   queue type, owner queue, confirm style, permanently active Y/N, name scope
//!   L/G, security Y/N).
//! - `%GNT`: the group name table, `Name Group.Queue Scope` with scope `G`
//!   (bus-wide) or `L` (group-wide); a name may denote a MOT
//!   (`Alarm_events 0.5110 G`).
//! - `%XGROUP`: cross-group links, one line per group; no public source
//!   documents the columns, so mqgate keeps them as written after the group
//!   name.
//! - `%SBS`: `HEARTBEAT` (milliseconds) and `COMM_SERVICE id DG/DMQ` blocks
//!   with `GROUPS *` and `REGISTER *`, closed by `END_COMM_SERVICE`.
//!
//! Anything else is refused with its line and column — an unknown section, a
//! MessageQ section mqgate does not implement (`%MRS`), the OpenVMS Ethernet
//! service (`COMM_SERVICE … DG/ETH`, `CNTRL_CHAN`, `DATA_CHAN`, `DEVICE_1`, …),
//! an unknown keyword — never skipped. Section names, keywords and keyword
//! values are read without regard to case; names and other columns keep theirs.
//! Parse errors carry PAMS__BADINITFILE.

mod error;
mod lex;
mod sbs_section;
mod sections;

pub use error::{InitFileError, InitFileErrorKind, Pos};

use lex::Line;

use crate::pams::address::QAddress;

/// A whole group initialization file.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct InitFile {
    /// `%PROFILE`, if present.
    pub profile: Option<Profile>,
    /// `%QCT` entries in file order (empty without the section).
    pub qct: Vec<QueueEntry>,
    /// `%GNT` entries in file order.
    pub gnt: Vec<GntEntry>,
    /// `%XGROUP` entries in file order.
    pub xgroup: Vec<XGroupEntry>,
    /// `%SBS`, if present.
    pub sbs: Option<SbsSection>,
    /// Every section read, with the line of its `%NAME`, in file order.
    pub sections: Vec<(SectionName, Pos)>,
}

impl InitFile {
    /// Reads a group initialization file.
    ///
    /// Errors: the first fault in text order, as an [`InitFileError`] with
    /// line and column.
    pub fn parse(text: &str) -> Result<InitFile, InitFileError> {
        parse(text)
    }

    /// Reads a group initialization file from its bytes, as read from disk.
    ///
    /// Errors: [`InitFileErrorKind::NotUtf8`] at the line and column of the
    /// first byte that is not UTF-8 (columns counted in characters, as
    /// everywhere); then as [`InitFile::parse`].
    pub fn parse_bytes(bytes: &[u8]) -> Result<InitFile, InitFileError> {
        match std::str::from_utf8(bytes) {
            Ok(text) => parse(text),
            Err(e) => {
                let good = &bytes[..e.valid_up_to()];
                // The valid prefix is UTF-8: count lines and characters in it.
                let good = std::str::from_utf8(good).unwrap_or_default();
                let line_start = good.rfind('\n').map_or(0, |i| i + 1);
                let pos = Pos {
                    line: good.matches('\n').count() + 1,
                    column: good[line_start..].chars().count() + 1,
                };
                let byte = bytes.get(e.valid_up_to()).copied().unwrap_or_default();
                Err(InitFileError::new(pos, InitFileErrorKind::NotUtf8 { byte }))
            }
        }
    }

    /// `ENABLE_SBS` of `%PROFILE`; YES when absent (the Programmer's Guide:
    /// "The default value for this parameter is YES").
    pub fn enable_sbs(&self) -> bool {
        self.profile.as_ref().is_none_or(Profile::enable_sbs)
    }

    /// The `%GNT` entry named `name` (names compared exactly).
    pub fn gnt_entry(&self, name: &str) -> Option<&GntEntry> {
        self.gnt.iter().find(|e| e.name == name)
    }

    /// The `%QCT` entry named `name`.
    pub fn queue(&self, name: &str) -> Option<&QueueEntry> {
        self.qct.iter().find(|e| e.name == name)
    }
}

/// The sections mqgate reads.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum SectionName {
    /// `%PROFILE`.
    Profile,
    /// `%QCT`.
    Qct,
    /// `%GNT`.
    Gnt,
    /// `%XGROUP`.
    XGroup,
    /// `%SBS`.
    Sbs,
}

impl SectionName {
    /// The name without `%`, upper case.
    pub fn name(self) -> &'static str {
        match self {
            SectionName::Profile => "PROFILE",
            SectionName::Qct => "QCT",
            SectionName::Gnt => "GNT",
            SectionName::XGroup => "XGROUP",
            SectionName::Sbs => "SBS",
        }
    }

    /// The section for a name (any case); `None` for others.
    pub fn from_name(name: &str) -> Option<SectionName> {
        [
            SectionName::Profile,
            SectionName::Qct,
            SectionName::Gnt,
            SectionName::XGroup,
            SectionName::Sbs,
        ]
        .into_iter()
        .find(|s| s.name().eq_ignore_ascii_case(name))
    }
}

/// The first 40 characters of a word of the file, as an error repeats it
/// (a file's word is never echoed whole).
pub(crate) fn clip(s: &str) -> String {
    s.chars().take(40).collect()
}

/// MessageQ sections mqgate knows of but does not implement, with the reason.
pub(crate) fn unsupported_section(name: &str) -> Option<&'static str> {
    name.eq_ignore_ascii_case("MRS")
        .then_some("mqgate does not implement the message recovery server (MRS)")
}

/// `%PROFILE`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Profile {
    /// Where `%PROFILE` is.
    pub pos: Pos,
    /// The settings in file order.
    pub entries: Vec<ProfileEntry>,
}

impl Profile {
    /// `ENABLE_SBS`, YES when not given.
    pub fn enable_sbs(&self) -> bool {
        self.entries
            .iter()
            .find(|e| e.key == ProfileKey::EnableSbs)
            .is_none_or(|e| e.value)
    }
}

/// A `%PROFILE` keyword mqgate reads.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ProfileKey {
    /// `ENABLE_SBS`: run the SBS server (default YES).
    EnableSbs,
    /// `ENABLE_MRS`: run the message recovery server (mqgate: NO only).
    EnableMrs,
    /// `ENABLE_JRN`: run the journal server (mqgate: NO only).
    EnableJrn,
}

impl ProfileKey {
    /// The keyword.
    pub fn name(self) -> &'static str {
        match self {
            ProfileKey::EnableSbs => "ENABLE_SBS",
            ProfileKey::EnableMrs => "ENABLE_MRS",
            ProfileKey::EnableJrn => "ENABLE_JRN",
        }
    }
}

/// One `KEY VALUE` line of `%PROFILE`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ProfileEntry {
    /// The keyword.
    pub key: ProfileKey,
    /// YES (true) or NO.
    pub value: bool,
    /// Where the keyword is.
    pub pos: Pos,
}

/// Quota enable column of `%QCT`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum QuotaEnable {
    /// `ALL`: byte and message quotas.
    All,
    /// `MSG`: message quota only.
    Msg,
    /// `BYTE`: byte quota only.
    Byte,
    /// `NONE`: no quota.
    None,
}

/// Name scope: `G` bus-wide, `L` group-wide.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Scope {
    /// `G`: the name is known on the whole message queuing bus.
    Global,
    /// `L`: the name is known in the group only.
    Local,
}

/// One `%QCT` line: a queue of the group. Columns holding `.` are `None`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct QueueEntry {
    /// Where the line starts.
    pub pos: Pos,
    /// Queue name.
    pub name: String,
    /// Queue number (0-65535).
    pub number: u16,
    /// Byte quota.
    pub byte_quota: Option<u32>,
    /// Message quota.
    pub msg_quota: Option<u32>,
    /// Quota enable.
    pub quota_enable: Option<QuotaEnable>,
    /// UCB send column, as written.
    pub ucb_send: Option<String>,
    /// Queue type column, as written.
    pub queue_type: Option<String>,
    /// Owner queue number.
    pub owner_queue: Option<u16>,
    /// Confirm style column, as written.
    pub confirm_style: Option<String>,
    /// Permanently active (`Y`/`N`).
    pub perm_active: Option<bool>,
    /// Name scope (`G`/`L`).
    pub scope: Option<Scope>,
    /// Security (`Y`/`N`).
    pub security: Option<bool>,
}

/// One `%GNT` line: `Name Group.Queue Scope`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GntEntry {
    /// Where the line starts.
    pub pos: Pos,
    /// The name applications look up with `pams_locate_q`.
    pub name: String,
    /// The address; group 0 = the local group.
    pub address: QAddress,
    /// Bus-wide or group-wide.
    pub scope: Scope,
}

impl GntEntry {
    /// True when the name denotes a MOT (queue number 4000-6000).
    pub fn is_mot(&self) -> bool {
        self.address.mot().is_some()
    }
}

/// A column kept as written: `None` for `.`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Column {
    /// The text, `None` for `.`.
    pub value: Option<String>,
    /// Where it is.
    pub pos: Pos,
}

/// One `%XGROUP` line: the group name and the other columns as written.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct XGroupEntry {
    /// Where the line starts.
    pub pos: Pos,
    /// First column: the group's name.
    pub name: String,
    /// The remaining columns, in order.
    pub columns: Vec<Column>,
}

/// `%SBS`: the SBS server's initialization.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SbsSection {
    /// Where `%SBS` is.
    pub pos: Pos,
    /// `HEARTBEAT`, in milliseconds.
    pub heartbeat_ms: Option<u32>,
    /// The `COMM_SERVICE` blocks.
    pub services: Vec<CommService>,
}

/// A `COMM_SERVICE id DG/DMQ` … `END_COMM_SERVICE` block: broadcasting over
/// the MessageQ cross-group transport (the default on every platform).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CommService {
    /// Where `COMM_SERVICE` is.
    pub pos: Pos,
    /// The service id.
    pub id: u32,
    /// `GROUPS *`: all known server groups.
    pub all_groups: bool,
    /// `REGISTER *`: all universal MOTs.
    pub all_universal_mots: bool,
}

fn parse(text: &str) -> Result<InitFile, InitFileError> {
    let lines = lex::lines(text)?;
    let mut file = InitFile::default();
    let mut iter = lines.into_iter();
    while let Some(line) = iter.next() {
        let (name, pos) = match line {
            Line::Section { name, pos } => (name, pos),
            Line::Eos { pos } => {
                return Err(InitFileError::new(
                    pos,
                    InitFileErrorKind::EosOutsideSection,
                ));
            }
            Line::Words(words) => {
                let (pos, found) = words
                    .first()
                    .map_or((Pos { line: 1, column: 1 }, String::new()), |w| {
                        (w.pos, w.text.chars().take(40).collect())
                    });
                return Err(InitFileError::new(
                    pos,
                    InitFileErrorKind::OutsideSection { found },
                ));
            }
        };
        let section = match SectionName::from_name(name) {
            Some(s) => s,
            None => {
                let kind = match unsupported_section(name) {
                    Some(reason) => InitFileErrorKind::UnsupportedSection {
                        name: clip(name),
                        reason,
                    },
                    None => InitFileErrorKind::UnknownSection { name: clip(name) },
                };
                return Err(InitFileError::new(pos, kind));
            }
        };
        if let Some((_, first)) = file.sections.iter().find(|(s, _)| *s == section) {
            return Err(InitFileError::new(
                pos,
                InitFileErrorKind::DuplicateSection {
                    name: section.name().to_owned(),
                    first_line: first.line,
                },
            ));
        }
        let mut body = Vec::new();
        let mut closed = None;
        for line in iter.by_ref() {
            match line {
                Line::Words(words) => body.push(words),
                Line::Eos { pos } => {
                    closed = Some(pos);
                    break;
                }
                Line::Section {
                    name: inner,
                    pos: at,
                } => {
                    return Err(InitFileError::new(
                        at,
                        InitFileErrorKind::NestedSection {
                            name: clip(inner),
                            open: section.name().to_owned(),
                            open_line: pos.line,
                        },
                    ));
                }
            }
        }
        let Some(eos) = closed else {
            let end = Pos {
                line: text.split('\n').count(),
                column: text.rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1,
            };
            return Err(InitFileError::new(
                end,
                InitFileErrorKind::MissingEos {
                    name: section.name().to_owned(),
                    open_line: pos.line,
                },
            ));
        };
        match section {
            SectionName::Profile => file.profile = Some(sections::profile(pos, &body)?),
            SectionName::Qct => file.qct = sections::qct(&body)?,
            SectionName::Gnt => file.gnt = sections::gnt(&body)?,
            SectionName::XGroup => file.xgroup = sections::xgroup(&body)?,
            SectionName::Sbs => file.sbs = Some(sbs_section::sbs(pos, eos, &body)?),
        }
        file.sections.push((section, pos));
    }
    Ok(file)
}
