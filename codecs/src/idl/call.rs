//! Which MQ operation an RPC program maps to (docs/rpc.md; the EntireX WebSphere MQ RPC Server documentation
//! "the remote procedure call has to have both INPUT and OUTPUT parameters, or
//! an INOUT parameter").

use super::ast::{Parameter, Program};
use super::dynamic::is_dynamic;

/// The MQ operation of a program.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum CallKind {
    /// Only IN parameters: one MQPUT to the output queue (asynchronous send).
    Put,
    /// Only OUT parameters: one MQGET from the input queue (asynchronous receive).
    Get,
    /// IN and OUT parameters, or any IN OUT: MQPUT of a Request, then MQGET of
    /// the reply matching its CorrelId.
    RequestReply,
}

/// Decides the operation from the directions of the program's level-1
/// parameters (none written = IN OUT).
///
/// Dynamic parameters (MQ_*) and IMS parameters are not payload and do not
/// count, so a program whose data is all OUT but that passes MQ_CORREL_ID IN is
/// a get by CorrelId, and one whose data is all IN but asks for MQ_CORREL_ID OUT
/// is a put that returns the CorrelId (decoupled request/reply, docs/rpc.md
/// "Which MQ operation a program becomes"). Only when a program has nothing
/// but dynamic parameters do their directions decide.
pub fn call_kind(program: &Program) -> CallKind {
    let payload: Vec<&Parameter> = program
        .params
        .iter()
        .filter(|p| !p.ims && !is_dynamic(&p.name))
        .collect();
    let deciding: Vec<&Parameter> = if payload.is_empty() {
        program.params.iter().filter(|p| !p.ims).collect()
    } else {
        payload
    };
    let any_in = deciding.iter().any(|p| p.direction.is_in());
    let any_out = deciding.iter().any(|p| p.direction.is_out());
    match (any_in, any_out) {
        (true, false) => CallKind::Put,
        (false, true) => CallKind::Get,
        _ => CallKind::RequestReply,
    }
}
