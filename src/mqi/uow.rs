//! Units of work (MQBEGIN / MQCMIT / MQBACK): the puts and gets made under
//! one are stored in one transaction at commit, or undone at backout.
//!
//! A unit of work is a number inside the gateway (the calls below take it).
//! A front end that hands a unit to a client — the HTTP API's `POST
//! /v1/uow`, an RPC conversation — begins it with [`Mqi::begin_token`] and
//! gives the client the [`Token`] only; each later request's token is turned
//! back into the unit with [`Mqi::uow_for_token`], which refuses a token it
//! does not know (src/qmgr/token.rs).

use super::Mqi;
use super::{QmError, SealedUow, Token};
use crate::qmgr::TokenKind;
use mqgate_codecs::mq::Mqrc;
use std::sync::Arc;
use std::time::Duration;

impl Mqi {
    /// Opens a unit of work; with `timeout`, it is backed out when idle that
    /// long. Errors: 2161 MQRC_Q_MGR_QUIESCING while the gateway stops.
    pub fn begin(&self, timeout: Option<Duration>) -> Result<u64, QmError> {
        self.qm.begin_uow(timeout, None)
    }

    /// Opens a unit of work for a client, as [`Mqi::begin`], named by a new
    /// random [`Token`] (128 bits) that the client gives back with each call
    /// under it. Errors: 2161 MQRC_Q_MGR_QUIESCING while the gateway stops;
    /// 2195 MQRC_UNEXPECTED_ERROR when no random token could be drawn.
    pub fn begin_token(&self, timeout: Option<Duration>) -> Result<Token, QmError> {
        self.qm
            .begin_uow_token(timeout, None)
            .map(|(_, token)| token)
    }

    /// Opens a unit of work for an RPC conversation, as
    /// [`Mqi::begin_token`], named by a token of kind
    /// [`TokenKind::Conversation`]: only [`Mqi::conversation_for_token`]
    /// takes it (docs/http-api.md "Tokens"). Errors: as [`Mqi::begin_token`].
    pub fn begin_conversation_token(&self, timeout: Option<Duration>) -> Result<Token, QmError> {
        self.qm
            .begin_uow_token_as(timeout, None, Some(TokenKind::Conversation))
            .map(|(_, token)| token)
    }

    /// The open unit of work `token` names (one begun by
    /// [`Mqi::begin_token`]), for the calls that take a unit. Errors: 2003
    /// MQRC_BACKED_OUT when the token names no open unit of work: it was
    /// committed, backed out or expired, this run of the gateway never
    /// issued it (from before a restart, or a guess), or it is a token of
    /// another kind (a lease's, acknowledged on its queue with [`Mqi::ack`];
    /// an RPC conversation's). The message is the same in every case, and
    /// names nothing but the token given (docs/http-api.md "Tokens").
    /// Nothing changes.
    pub fn uow_for_token(&self, token: Token) -> Result<u64, QmError> {
        self.qm
            .token_uow_of(&token, TokenKind::Uow)
            .ok_or_else(|| {
                QmError::new(
                    Mqrc::BACKED_OUT,
                    format!(
                        "unit of work {token} is not open: it was committed, backed out or expired, or it was not begun since the gateway started"
                    ),
                )
            })
    }

    /// The open unit of work of RPC conversation `token` (one begun by
    /// [`Mqi::begin_conversation_token`]); `None` when the token names no
    /// open conversation — unknown, ended, or a token of another kind alike.
    pub fn conversation_for_token(&self, token: Token) -> Option<u64> {
        self.qm.token_uow_of(&token, TokenKind::Conversation)
    }

    /// MQCMIT: the unit's persistent puts and gets go to the store in one
    /// transaction, durable when this returns. A lease is not a unit of work
    /// an application may commit (acknowledge it on its queue).
    ///
    /// Errors: 2003 MQRC_BACKED_OUT when `uow` is not open (or is a lease),
    /// or when the store failed and the unit was backed out.
    pub async fn commit(&self, uow: u64) -> Result<(), QmError> {
        self.check_not_lease(uow)?;
        let qm = Arc::clone(&self.qm);
        Mqi::blocking(move || qm.commit(uow)).await
    }

    /// MQBACK: puts discarded, gets returned with BackoutCount + 1.
    /// Errors: 2003 when `uow` is not open (or is a lease).
    pub async fn backout(&self, uow: u64) -> Result<(), QmError> {
        self.check_not_lease(uow)?;
        let qm = Arc::clone(&self.qm);
        Mqi::blocking(move || qm.backout(uow)).await
    }

    /// [`Mqi::backout`] on the caller's thread. A unit holding persistent
    /// gets writes their BackoutCount to the store; one holding only puts,
    /// or nothing (a get that found no message), writes nothing. Errors: as
    /// [`Mqi::backout`].
    pub fn backout_now(&self, uow: u64) -> Result<(), QmError> {
        self.check_not_lease(uow)?;
        self.qm.backout(uow)
    }

    /// MQCMIT of `uow` together with named state records `meta` (name,
    /// bytes; a record is replaced, and empty bytes leave it empty), in one
    /// store transaction, on
    /// the caller's thread: a sender channel removes the messages of a batch
    /// the receiver confirmed and clears its in-flight record at once, so a
    /// crash leaves both or neither (IBM MQ "Units of work";
    /// docs/channel-protocol.md "Sender channels"). Errors: 2003
    /// MQRC_BACKED_OUT when `uow` is not open (or is a lease), or the store
    /// failed and the unit was backed out.
    pub fn commit_with_meta_now(
        &self,
        uow: u64,
        meta: Vec<(String, Vec<u8>)>,
    ) -> Result<(), QmError> {
        self.check_not_lease(uow)?;
        self.qm.commit_with_meta(uow, meta)
    }

    /// The first half of a commit, on the caller's thread: closes `uow` to
    /// further calls and prepares its store changes together with the state
    /// records `meta` (name, bytes) — a receiver channel's last committed
    /// batch sequence number, so the batch and its number are durable
    /// together or not at all (docs/channel-protocol.md "Batches", exactly
    /// once). Nothing is visible or durable yet: finish with
    /// [`Mqi::commit_seal`] or [`Mqi::backout_seal`]. Sealing one unit while
    /// another one commits lets a channel apply its next group of batches
    /// during the previous group's fsync (docs/channel-protocol.md
    /// "Pipelining and group commit"; IBM MQ "Units of work", the prepare
    /// phase of a two-phase commit).
    ///
    /// Errors: 2003 MQRC_BACKED_OUT when `uow` is not open (committed,
    /// backed out, expired, never begun) or is a lease.
    pub fn seal(&self, uow: u64, meta: Vec<(String, Vec<u8>)>) -> Result<SealedUow, QmError> {
        self.check_not_lease(uow)?;
        self.qm.seal(uow, meta)
    }

    /// The second half of a commit, on the caller's thread: the sealed
    /// unit's changes and state records go to the store in one transaction
    /// (durable when this returns), then its puts become visible and its
    /// gets are gone. Errors: 2003 MQRC_BACKED_OUT when the store failed;
    /// the unit was backed out then (its puts discarded, its gets back on
    /// their queues).
    pub fn commit_seal(&self, sealed: SealedUow) -> Result<(), QmError> {
        self.qm.commit_sealed(sealed)
    }

    /// Backs out a sealed unit of work that will not be committed (as
    /// [`Mqi::backout`]: puts discarded, gets returned with BackoutCount + 1).
    pub fn backout_seal(&self, sealed: SealedUow) {
        self.qm.backout_sealed(sealed);
    }

    fn check_not_lease(&self, uow: u64) -> Result<(), QmError> {
        match self.qm.lease_queue(uow) {
            None => Ok(()),
            Some(q) => Err(QmError::new(
                Mqrc::BACKED_OUT,
                format!(
                    "{uow} is a lease on queue {q}, not a unit of work: acknowledge or back it out on its queue"
                ),
            )),
        }
    }
}
