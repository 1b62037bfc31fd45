//! The INITIAL_DATA negotiation of a server-connection channel, as a pure
//! function: the client's INITIAL_DATA and the channel's limits in, the
//! reply and what happens next out (docs/mq-client-protocol.md
//! "Handshake").
//!
//! A queue manager answers with the values it takes. Where it lowered or
//! raised a value it sets that value's bit of IniErrorFlags1; a capability
//! it does not take is left out of the reply's CapabilityFlags and named in
//! its ECapabilityFlags; either way the reply's ControlFlags1 carries
//! ERROR and the client sends INITIAL_DATA again with what it was offered
//! (real JMS client traffic: a queue manager refusing CapabilityFlags3 0x08
//! with ECapabilityFlags3 0x08). IBM MQ "Heartbeat interval (HBINT)": the
//! larger heartbeat interval of the two ends is used; "Maximum message
//! length (MAXMSGL)" and "Sharing conversations (SHARECNV)": the smaller.

use super::config::{MIN_TRANSMISSION_SIZE, SvrconnChannel, SvrconnConfig};
use mqgate_codecs::fap::StatusCode;
use mqgate_codecs::fap::id::{InitialData, icf1, icf2, icf3, ief1};

/// The highest FAP level mqgate speaks (the level of IBM MQ 9 clients).
pub const FAP_LEVEL: u8 = 17;
/// The lowest FAP level mqgate takes: level 10 brought the FOPA of MQOPEN
/// and 240-byte INITIAL_DATA came with 11; older clients are refused.
pub const MIN_FAP_LEVEL: u8 = 10;

/// The capabilities mqgate takes: those a queue manager took in real JMS
/// client traffic. Distribution lists and XA are taken as the queue manager
/// does, and their calls answered with their reasons
/// (docs/mq-client-protocol.md "Not implemented").
pub const CAPABILITIES1: u8 = icf1::CONVERSION_CAPABLE | icf1::SPLIT_MESSAGE | icf1::MQREQUEST;
/// CapabilityFlags2 mqgate takes.
pub const CAPABILITIES2: u8 = icf2::DIST_LIST_CAPABLE | icf2::XAREQUEST | icf2::SPIREQUEST;
/// CapabilityFlags3 mqgate takes.
pub const CAPABILITIES3: u8 = icf3::GEN_CONN_TAG_CAPABLE;

/// What mqgate tells about itself in INITIAL_DATA.
#[derive(Clone, Debug)]
pub struct ServerIdentity {
    /// The queue manager name, blank padded to 48.
    pub q_mgr_name: [u8; 48],
    /// QMgrIdentifier, blank padded to 48.
    pub q_mgr_identifier: [u8; 48],
    /// ProcessId (the gateway's).
    pub process_id: i32,
}

/// The values both ends agreed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Agreed {
    /// FAP level.
    pub fap_level: u8,
    /// Bytes per segment.
    pub max_transmission_size: u32,
    /// Bytes per message.
    pub max_msg_size: u32,
    /// Seconds; 0 = none.
    pub heartbeat_interval: u32,
    /// Conversations the socket may carry (at least 1).
    pub conv_per_socket: u32,
}

/// What the client's INITIAL_DATA leads to.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Outcome {
    /// The reply carries ERROR: the client is to send INITIAL_DATA again.
    Retry,
    /// The reply is the agreement.
    Agreed(Agreed),
    /// No reply but a STATUS_DATA of this code (and MQRC reason) before the
    /// socket closes: no such channel, or a FAP level too low.
    Refused { code: StatusCode, reason: i32 },
}

/// The reply to `client` on `config` and what follows. The reply's
/// ControlFlags1 ERROR is set exactly when the outcome is
/// [`Outcome::Retry`].
pub fn negotiate(
    client: &InitialData,
    config: &SvrconnConfig,
    me: &ServerIdentity,
) -> (InitialData, Outcome) {
    let name = String::from_utf8_lossy(&client.channel_name)
        .trim_end_matches([' ', '\0'])
        .to_string();
    let Some(channel) = config.channel(&name) else {
        // IBM MQ: AMQ9520 / 2540 MQRC_UNKNOWN_CHANNEL_NAME on the client.
        return (
            client.clone(),
            Outcome::Refused {
                code: StatusCode::NO_CHANNEL,
                reason: 2540,
            },
        );
    };
    if client.fap_level < MIN_FAP_LEVEL {
        return (
            client.clone(),
            Outcome::Refused {
                code: StatusCode::FAP_LEVEL,
                reason: 2059,
            },
        );
    }
    reply(client, config, channel, me)
}

fn reply(
    client: &InitialData,
    config: &SvrconnConfig,
    channel: &SvrconnChannel,
    me: &ServerIdentity,
) -> (InitialData, Outcome) {
    let mut r = client.clone();
    let mut errors = 0u8;
    r.fap_level = client.fap_level.min(FAP_LEVEL);
    if r.fap_level != client.fap_level {
        errors |= ief1::FAP_LEVEL;
    }
    let client_tr = u32::try_from(client.max_transmission_size).unwrap_or(0);
    // Not below mqgate's smallest maximum: 40-byte segments would cut a
    // reply into 4 bytes of data per 36-byte header.
    let tr = client_tr
        .max(MIN_TRANSMISSION_SIZE)
        .min(config.max_transmission_size);
    if tr != client_tr {
        errors |= ief1::MAX_TRANSMISSION_SIZE;
    }
    r.max_transmission_size = tr as i32;
    let client_msg = u32::try_from(client.max_msg_size).unwrap_or(0);
    let msg = client_msg.clamp(1, channel.maxmsgl);
    if msg != client_msg {
        errors |= ief1::MAX_MSG_SIZE;
    }
    r.max_msg_size = msg as i32;
    let client_hb = u32::try_from(client.heartbeat_interval).unwrap_or(0);
    let hb = client_hb.max(channel.heartbeat);
    if hb != client_hb {
        errors |= ief1::HEARTBEAT_INTERVAL;
    }
    r.heartbeat_interval = hb as i32;
    let client_conv = u32::try_from(client.conv_per_socket).unwrap_or(0);
    let conv = client_conv.min(channel.sharecnv);
    r.conv_per_socket = conv as i32;
    r.ini_error_flags1 = errors;
    r.ini_error_flags2 = 0;
    r.capability_flags1 = client.capability_flags1 & CAPABILITIES1;
    r.e_capability_flags1 = client.capability_flags1 & !CAPABILITIES1;
    r.capability_flags2 = client.capability_flags2 & CAPABILITIES2;
    r.e_capability_flags2 = client.capability_flags2 & !CAPABILITIES2;
    r.capability_flags3 = client.capability_flags3 & CAPABILITIES3;
    r.e_capability_flags3 = client.capability_flags3 & !CAPABILITIES3;
    r.q_mgr_name = me.q_mgr_name;
    r.q_mgr_identifier = me.q_mgr_identifier;
    r.efl_length = 0;
    // Header and message compression: none (0x00), then unused (0xFF).
    r.hdr_comp_list = [0x00, 0xFF];
    r.msg_comp_list = [0xFF; 16];
    r.msg_comp_list[0] = 0x00;
    r.ssl_key_reset_count = 0;
    r.process_id = me.process_id;
    r.thread_id = 1;
    r.trace_id = 0;
    r.product_id = *PRODUCT_ID;
    // No password protection algorithm is offered; docs/mq-client-protocol.md.
    r.protection_algorithms = [0xFF; 20];
    r.random = [0; 12];
    let refused = r.e_capability_flags1 | r.e_capability_flags2 | r.e_capability_flags3;
    if errors != 0 || refused != 0 {
        return (r, Outcome::Retry);
    }
    let fap_level = r.fap_level;
    (
        r,
        Outcome::Agreed(Agreed {
            fap_level,
            max_transmission_size: tr,
            max_msg_size: msg,
            heartbeat_interval: hb,
            conv_per_socket: conv.max(1),
        }),
    )
}

/// ProductId: an IBM MQ 9.4 queue manager's form (`MQMM` + VVRRMMFF), which
/// clients expect from a queue manager (docs/mq-client-protocol.md).
pub const PRODUCT_ID: &[u8; 12] = b"MQMM09040000";

#[cfg(test)]
mod tests {
    use super::*;

    fn config() -> SvrconnConfig {
        serde_yaml::from_str("channels: [{name: APP.SVRCONN}]").unwrap()
    }

    fn me() -> ServerIdentity {
        let mut q = [b' '; 48];
        q[..3].copy_from_slice(b"QM1");
        ServerIdentity {
            q_mgr_name: q,
            q_mgr_identifier: q,
            process_id: 7,
        }
    }

    /// The values of a real JMS client's first INITIAL_DATA.
    fn jms_client() -> InitialData {
        let mut chl = [b' '; 20];
        chl[..11].copy_from_slice(b"APP.SVRCONN");
        InitialData {
            fap_level: 17,
            capability_flags1: 0x26,
            capability_flags2: 0x51,
            capability_flags3: 0x28,
            max_transmission_size: 32748,
            max_msg_size: 4_194_304,
            heartbeat_interval: 300,
            conv_per_socket: 10,
            channel_name: chl,
            ccsid: 819,
            ..InitialData::default()
        }
    }

    #[test]
    fn the_jms_client_is_asked_to_drop_capability_0x08_then_agreed() {
        // As the queue manager in the capture: CapabilityFlags3 0x20,
        // ECapabilityFlags3 0x08, ERROR; then the client's second round
        // (0x20) is agreed with the values it asked for.
        let (r, o) = negotiate(&jms_client(), &config(), &me());
        assert_eq!(o, Outcome::Retry);
        assert_eq!((r.capability_flags3, r.e_capability_flags3), (0x20, 0x08));
        assert_eq!((r.capability_flags1, r.capability_flags2), (0x26, 0x51));
        assert_eq!(r.ini_error_flags1, 0);
        let again = InitialData {
            capability_flags3: 0x20,
            ..jms_client()
        };
        let (r, o) = negotiate(&again, &config(), &me());
        assert_eq!(
            o,
            Outcome::Agreed(Agreed {
                fap_level: 17,
                max_transmission_size: 32748,
                max_msg_size: 4_194_304,
                heartbeat_interval: 300,
                conv_per_socket: 10,
            })
        );
        assert_eq!(&r.q_mgr_name[..4], b"QM1 ");
    }

    #[test]
    fn lowered_values_carry_their_error_flags() {
        let c = InitialData {
            fap_level: 20,
            capability_flags3: 0x20,
            max_transmission_size: 1 << 30,
            max_msg_size: 200 << 20,
            heartbeat_interval: 5,
            conv_per_socket: 100,
            ..jms_client()
        };
        let (r, o) = negotiate(&c, &config(), &me());
        assert_eq!(o, Outcome::Retry);
        // MQ_IEF1_FAP_LEVEL 0x08, MAX_TRANSMISSION_SIZE 0x04, MAX_MSG_SIZE
        // 0x10, HEARTBEAT_INTERVAL 0x80 (the Wireshark MQ dissector).
        assert_eq!(r.ini_error_flags1, 0x08 | 0x04 | 0x10 | 0x80);
        assert_eq!(r.fap_level, 17);
        assert_eq!(r.max_transmission_size, 32768);
        assert_eq!(r.max_msg_size, 4 * 1024 * 1024);
        assert_eq!(r.heartbeat_interval, 300);
        assert_eq!(r.conv_per_socket, 10);
    }

    #[test]
    fn unknown_channels_and_old_levels_are_refused() {
        let mut c = jms_client();
        c.channel_name[0] = b'X';
        let (_, o) = negotiate(&c, &config(), &me());
        // MQ_STATUS_ERR_NO_CHANNEL 0x01; 2540 MQRC_UNKNOWN_CHANNEL_NAME.
        assert_eq!(
            o,
            Outcome::Refused {
                code: StatusCode(1),
                reason: 2540
            }
        );
        let old = InitialData {
            fap_level: 9,
            ..jms_client()
        };
        assert!(matches!(
            negotiate(&old, &config(), &me()).1,
            Outcome::Refused {
                code: StatusCode(0xF2),
                ..
            }
        ));
    }
}
