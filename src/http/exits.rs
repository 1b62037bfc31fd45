//! The queue API's exit points (docs/exits.md "Where each point runs"):
//! before_put over the put's MQMD, data and put options; before_get over the
//! get options; after_get over the copy of the message handed back (the
//! stored message is not changed). Chains come from the top-level `exits:`
//! section, per queue name as the application named it.

use super::{ApiError, AppState, blocking};
use crate::exits::{ExitStop, QueuePointChains};
use crate::qmgr::{GetResult, PutOptions, QmError, Selector};
use bytes::{Bytes, BytesMut};
use mqgate_codecs::mq::constants::{gmo, mo, pmo};
use mqgate_codecs::mq::md::ID_NONE;
use mqgate_codecs::mq::{Charset, Mqmd, Mqrc};
use std::sync::Arc;
use std::time::Duration;

fn stopped(stop: ExitStop) -> QmError {
    QmError::new(stop.reason, stop.to_string())
}

/// The running chains of queue `q`, or `None` when no exit runs for it.
/// Errors: the chains cannot start (2374 MQRC_API_EXIT_ERROR).
pub fn chains_for(s: &AppState, q: &str) -> Result<Option<Arc<QueuePointChains>>, ApiError> {
    s.exits
        .for_queue(q)
        .map_err(|e| ApiError::new(Mqrc::API_EXIT_ERROR, e.to_string()))
}

/// Runs before_put and applies what the exits left: MQMD, data, and the
/// MQPMO_NEW_MSG_ID / NEW_CORREL_ID options. A MsgId of MQMI_NONE still gets
/// a new one. Errors: an exit stopped the put (its reason, or 2374).
pub fn before_put(
    chains: &QueuePointChains,
    md: &mut Mqmd,
    data: &mut Bytes,
    opts: &mut PutOptions,
) -> Result<(), QmError> {
    let mut options = if opts.uow.is_some() {
        pmo::SYNCPOINT
    } else {
        pmo::NO_SYNCPOINT
    };
    if opts.new_msg_id {
        options |= pmo::NEW_MSG_ID;
    }
    if opts.new_correl_id {
        options |= pmo::NEW_CORREL_ID;
    }
    let mut pmo_exit = mqgate_exits::PutOptions { options };
    let mut buf = BytesMut::from(&data[..]);
    chains
        .before_put(md, Charset::Ascii, &mut buf, &mut pmo_exit)
        .map_err(stopped)?;
    *data = buf.freeze();
    opts.new_msg_id = pmo_exit.options & pmo::NEW_MSG_ID != 0 || md.msg_id == ID_NONE;
    opts.new_correl_id = pmo_exit.options & pmo::NEW_CORREL_ID != 0;
    Ok(())
}

/// A get as the exits see it (MQGMO / MQMO) and after before_get changed it.
pub struct GetRequest {
    pub selector: Selector,
    pub wait: Duration,
}

/// Runs before_get over the get options of an HTTP get (`options`: its
/// MQGMO browse or syncpoint option; MQGMO_WAIT is added when it waits) and applies what the
/// exits left: MQGMO_WAIT and WaitInterval (MQWI_UNLIMITED and longer waits
/// are capped at `max_wait`), MQMO_MATCH_MSG_ID / MATCH_CORREL_ID (a cleared
/// match option drops that selector). Browse and syncpoint options are shown
/// to the exits; changes to them are not applied. Errors: an exit stopped
/// the get (its reason, or 2374).
pub async fn before_get(
    chains: Arc<QueuePointChains>,
    request: GetRequest,
    mut options: i32,
    max_wait: Duration,
) -> Result<GetRequest, ApiError> {
    if !request.wait.is_zero() {
        options |= gmo::WAIT;
    }
    let mut match_options = mo::NONE;
    if request.selector.msg_id.is_some() {
        match_options |= mo::MATCH_MSG_ID;
    }
    if request.selector.correl_id.is_some() {
        match_options |= mo::MATCH_CORREL_ID;
    }
    let mut gmo_exit = mqgate_exits::GetOptions {
        options,
        wait_interval: i32::try_from(request.wait.as_millis()).unwrap_or(i32::MAX),
        match_options,
    };
    let gmo_exit = blocking(move || {
        chains.before_get(&mut gmo_exit).map_err(stopped)?;
        Ok(gmo_exit)
    })
    .await?;
    let wait = if gmo_exit.options & gmo::WAIT == 0 {
        Duration::ZERO
    } else {
        match u64::try_from(gmo_exit.wait_interval) {
            Ok(ms) => Duration::from_millis(ms).min(max_wait),
            // MQWI_UNLIMITED (-1) or any other negative value.
            Err(_) => max_wait,
        }
    };
    let sel = request.selector;
    Ok(GetRequest {
        selector: Selector {
            msg_id: sel
                .msg_id
                .filter(|_| gmo_exit.match_options & mo::MATCH_MSG_ID != 0),
            correl_id: sel
                .correl_id
                .filter(|_| gmo_exit.match_options & mo::MATCH_CORREL_ID != 0),
        },
        wait,
    })
}

/// Runs after_get over a copy of the message got; the result is what the
/// caller receives. Errors: an exit stopped the get (its reason, or 2374).
pub async fn after_get(
    chains: Arc<QueuePointChains>,
    mut got: GetResult,
) -> Result<GetResult, ApiError> {
    blocking(move || {
        let mut buf = BytesMut::from(&got.data[..]);
        chains
            .after_get(&mut got.md, got.charset, &mut buf)
            .map_err(stopped)?;
        got.data = buf.freeze();
        Ok(got)
    })
    .await
}
