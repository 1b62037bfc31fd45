//! `convert`: converts a message to a target CCSID and Encoding with the
//! codecs' MQ data conversion (`mqgate_codecs::ccsid::convert_message`, what
//! MQGMO_CONVERT does; docs/ccsid.md), e.g. at `after_get` for a consumer
//! that wants EBCDIC, or at `message` on a channel (like MQ's CONVERT(YES)).
//!
//! Exit data (`key=value` items):
//! - `ccsid=N` (required): the target CodedCharSetId, a CCSID the ccsid
//!   module supports;
//! - `encoding=N`: the target Encoding, default 546 (MQENC_REVERSED);
//! - `unmappable=fail|substitute`: default `fail` (2119 MQRC_NOT_CONVERTED);
//! - `on_error=pass|suppress`: when the message cannot be (fully) converted
//!   (2110 MQRC_FORMAT_ERROR, 2119 MQRC_NOT_CONVERTED, or another conversion
//!   warning: docs/ccsid.md): `pass` (default, as MQGMO_CONVERT does)
//!   carries on with what the conversion returned — unconverted, or headers
//!   converted and an unknown body left as it was — and reports the reason
//!   as the call's warning ([`crate::ExitWarning`]: at after_get the consumer
//!   gets MQCC_WARNING and the reason, as from MQGET); `suppress`
//!   dead-letters the message, unchanged, with that reason.
//!
//! For `before_put` / `after_get` the MQMD describes the data: the MQMD's
//! Encoding and CodedCharSetId are set to what the converted data now is
//! (unchanged when it was not converted, as MQGET does).

use crate::api::{Exit, ExitContext, ExitPoint, ExitResponse, ExitWarning, Payload};
use crate::exit_data;
use bytes::BytesMut;
use mqgate_codecs::ccsid::{Ccsid, OnUnmappable, Options, convert_for_get, convert_message};
use mqgate_codecs::mq::chain::{ChainOptions, Descriptor};
use mqgate_codecs::mq::constants::{ccsi, enc};
use mqgate_codecs::mq::{Charset, Mqmd, Mqrc};

/// The configured target.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Convert {
    ccsid: i32,
    encoding: i32,
    options: Options,
    suppress_on_error: bool,
}

/// Why the exit data was refused.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum DataError {
    #[error(transparent)]
    Syntax(#[from] exit_data::ExitDataError),
    #[error("{key}={value:?} is not valid: {problem}")]
    Value {
        key: &'static str,
        value: String,
        problem: String,
    },
    #[error("exit data needs ccsid=N (the target CodedCharSetId)")]
    MissingCcsid,
    #[error("unknown key {0:?} (known: ccsid, encoding, unmappable, on_error)")]
    UnknownKey(String),
}

fn number(key: &'static str, v: &str) -> Result<i32, DataError> {
    v.parse().map_err(|_| DataError::Value {
        key,
        value: v.to_string(),
        problem: "expected a number".to_string(),
    })
}

impl Convert {
    /// Reads `ccsid=`, `encoding=`, `unmappable=` and `on_error=`; the target
    /// CCSID must be one the ccsid module converts to.
    pub fn from_exit_data(data: &str) -> Result<Self, DataError> {
        let mut ccsid = None;
        let mut c = Convert {
            ccsid: 0,
            encoding: enc::REVERSED,
            options: Options::default(),
            suppress_on_error: false,
        };
        for item in exit_data::items(data) {
            let (k, v) = item?;
            match k {
                "ccsid" => ccsid = Some(number("ccsid", v)?),
                "encoding" => c.encoding = number("encoding", v)?,
                "unmappable" => {
                    c.options.on_unmappable = match v {
                        "fail" => OnUnmappable::Fail,
                        "substitute" => OnUnmappable::Substitute,
                        _ => {
                            return Err(DataError::Value {
                                key: "unmappable",
                                value: v.to_string(),
                                problem: "expected fail or substitute".to_string(),
                            });
                        }
                    }
                }
                "on_error" => {
                    c.suppress_on_error = match v {
                        "pass" => false,
                        "suppress" => true,
                        _ => {
                            return Err(DataError::Value {
                                key: "on_error",
                                value: v.to_string(),
                                problem: "expected pass or suppress".to_string(),
                            });
                        }
                    }
                }
                _ => return Err(DataError::UnknownKey(k.to_string())),
            }
        }
        c.ccsid = ccsid.ok_or(DataError::MissingCcsid)?;
        Ccsid::with_encoding(c.ccsid, c.encoding).map_err(|e| DataError::Value {
            key: "ccsid",
            value: c.ccsid.to_string(),
            problem: e.to_string(),
        })?;
        Ok(c)
    }

    /// Converts a transmission message or message data starting with an MQMD
    /// (the whole input, headers included). Returns the new bytes and the
    /// warning reason, if any.
    pub fn convert_bytes(&self, input: &[u8]) -> (Vec<u8>, Option<(Mqrc, String)>) {
        let r = convert_message(
            input,
            &ChainOptions::default(),
            self.ccsid,
            self.encoding,
            &self.options,
        );
        let warning = r.reason.map(|rc| (rc, r.detail.unwrap_or_default()));
        (r.data, warning)
    }

    /// Converts `data` described by `md` (its Format in `charset`) as MQGET
    /// with MQGMO_CONVERT does (`mqgate_codecs::ccsid::convert_for_get`; IBM
    /// MQ "Conversion processing"): `md`'s Encoding and CodedCharSetId then
    /// describe the data returned — the target once converted, the message's
    /// own otherwise. A CodedCharSetId of 0 (MQCCSI_Q_MGR) is the queue
    /// manager's CCSID, [`crate::Q_MGR_CCSID`] (IBM MQ "MQMD -
    /// CodedCharSetId"). Returns the data and the warning reason, if any.
    pub fn convert_with_md(
        &self,
        md: &mut Mqmd,
        charset: Charset,
        data: &[u8],
    ) -> (Vec<u8>, Option<(Mqrc, String)>) {
        let ccsid = match md.coded_char_set_id {
            ccsi::Q_MGR => crate::api::Q_MGR_CCSID,
            n => n,
        };
        let described = Descriptor {
            encoding: md.encoding,
            coded_char_set_id: ccsid,
            format: md.format,
            charset,
        };
        let r = convert_for_get(data, &described, self.ccsid, self.encoding, &self.options);
        md.encoding = r.encoding;
        md.coded_char_set_id = r.coded_char_set_id;
        let warning = r.reason.map(|rc| (rc, r.detail.unwrap_or_default()));
        (r.data.into_owned(), warning)
    }
}

impl Exit for Convert {
    fn call(&mut self, ctx: &mut ExitContext<'_>, payload: Payload<'_>) -> ExitResponse {
        let warning = match payload {
            Payload::Buffer(buf) => {
                let (out, w) = self.convert_bytes(buf);
                replace(buf, &out);
                w
            }
            Payload::Put {
                md, charset, data, ..
            }
            | Payload::Got { md, charset, data } => {
                let (out, w) = self.convert_with_md(md, charset, data);
                replace(data, &out);
                w
            }
            Payload::None | Payload::Get { .. } => None,
        };
        let Some((reason, detail)) = warning else {
            return ExitResponse::Ok;
        };
        if self.suppress_on_error {
            tracing::warn!(point = %ctx.exit_point, object = ctx.object_name, reason = %reason, %detail,
                "convert: message not (fully) converted; it is suppressed");
            // The chain undoes this exit's change: the message is dead-lettered as it came.
            ExitResponse::SuppressFunction(reason)
        } else {
            tracing::debug!(point = %ctx.exit_point, object = ctx.object_name, reason = %reason, %detail,
                "convert: message not (fully) converted; reported as the call's warning");
            ctx.warning = Some(ExitWarning { reason, detail });
            ExitResponse::Ok
        }
    }
}

fn replace(target: &mut BytesMut, bytes: &[u8]) {
    if target[..] != *bytes {
        target.clear();
        target.extend_from_slice(bytes);
    }
}

/// The exit points where `convert` may be configured.
pub fn allowed_at(point: ExitPoint) -> bool {
    !matches!(point, ExitPoint::BeforeGet)
}
