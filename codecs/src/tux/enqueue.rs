//! A tpenqueue request checked against DMCONFIG and the tables of BEA Tuxedo "Using the
//! BEA Tuxedo TOP END Domain Gateway", as a pure function: the gateway (`src/tedg/`)
//! calls [`plan_enqueue`], performs the RTQ put it returns, and writes the outcome back
//! with [`complete_ctl`].
//!
//! Check order (mqgate; the TEDG guide gives the checks, not their order):
//! QSPACE lookup, QNAME lookup, call flags and TPQ* flags, buffer type, size.
//! This follows the TEDG's path: the qspace routes the call to the gateway, the
//! qname names the service, then the request itself is examined.

use super::buftype::{BufferType, check_buffer_type, check_message_size};
use super::codes::TpError;
use super::dmconfig::{DmConfig, TopendService};
use super::fml32::index_stripped_size;
use super::rtq::RequestId;
use super::tedg::{RtqPutParams, TedgFailure, map_named_flags};
use super::tpqctl::{NamedFlags, Tpqctl};

/// What a client passes to tpenqueue, flags already sorted by kind.
#[derive(Clone, Debug)]
pub struct EnqueueRequest<'a> {
    /// The qspace argument.
    pub qspace: &'a str,
    /// The qname argument.
    pub qname: &'a str,
    /// TPQCTL flags, call flags and QOS names.
    pub flags: &'a NamedFlags,
    /// TPQCTL deq_time (seconds).
    pub deq_time: i64,
    /// The buffer type name (`FML32`, `CARRAY`, `X_OCTET`).
    pub buftype: &'a str,
    /// The buffer bytes (FML32: encoded as [`super::fml32`]).
    pub data: &'a [u8],
}

/// The RTQ queue a QSPACE entry names (TE_RTQGROUP, TE_RTQNAME, TE_TARGET).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RtqQueue {
    /// TE_RTQGROUP
    pub group: String,
    /// TE_RTQNAME
    pub name: String,
    /// TE_TARGET, if set.
    pub target: Option<String>,
}

/// The RTQ put an accepted request becomes (mqgate's tp_rtq_put argument order,
/// docs/tuxedo.md: queue_info, service, schedule_time, buffer type, data).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RtqPut {
    /// The queue (from the QSPACE entry).
    pub queue: RtqQueue,
    /// The TOP END service (from the QNAME entry).
    pub service: TopendService,
    /// Schedule, transaction, TPQMSGID (from the flag mapping table).
    pub params: RtqPutParams,
    /// The checked buffer type.
    pub buftype: BufferType,
    /// Size in bytes that counted toward the 30,000-byte limit.
    pub size: usize,
}

/// Checks a tpenqueue request and returns the RTQ put to perform, or the
/// failure from the TEDG guide's error table. A malformed FML32 buffer is
/// TPEDIAGNOSTIC/QMEINVAL (an invalid argument; mqgate).
pub fn plan_enqueue(cfg: &DmConfig, req: &EnqueueRequest<'_>) -> Result<RtqPut, TedgFailure> {
    let qspace = cfg
        .qspace(req.qspace)
        .ok_or_else(|| TedgFailure::NoQspace {
            qspace: req.qspace.chars().take(64).collect(),
        })?;
    let qname = cfg.qname(req.qname).ok_or_else(|| TedgFailure::NoQname {
        qname: req.qname.chars().take(64).collect(),
    })?;
    let params = map_named_flags(req.flags, req.deq_time)?;
    let buftype = check_buffer_type(req.buftype, qname.inbuftype.map(BufferType::name))?;
    let size = match buftype {
        BufferType::Fml32 => index_stripped_size(req.data).map_err(TedgFailure::MalformedFml32)?,
        BufferType::Carray | BufferType::XOctet => req.data.len(),
    };
    check_message_size(size)?;
    Ok(RtqPut {
        queue: RtqQueue {
            group: qspace.rtq_group.clone(),
            name: qspace.rtq_name.clone(),
            target: qspace.target.clone(),
        },
        service: qname.service.clone(),
        params,
        buftype,
        size,
    })
}

/// Writes a tpenqueue outcome into the caller's TPQCTL, as a TMQUEUE server
/// does: on success with TPQMSGID the request id goes into msgid (the TEDG
/// guide: TPQMSGID); on TPEDIAGNOSTIC the QME value goes into diagnostic.
/// Returns the tperrno to report (`None` on success).
pub fn complete_ctl(
    ctl: &mut Tpqctl,
    outcome: Result<RequestId, TpError>,
    return_request_id: bool,
) -> Option<TpError> {
    match outcome {
        Ok(id) => {
            if return_request_id {
                ctl.msgid = id.to_msgid();
            }
            None
        }
        Err(e) => {
            if let Some(d) = e.diagnostic {
                ctl.diagnostic = d;
            }
            Some(e)
        }
    }
}
