//! MQTT 5.0 properties (2.2.2): a Property Length, then properties, each a
//! Property Identifier and a value of the type the identifier defines
//! (Table 2-4). Which properties each packet may carry, and which may be
//! repeated, follow Table 2-4 and the packet sections (3.1.2.11 ...).

use super::error::{ErrorKind, MqttError};
use super::read::Reader;
use super::write;
use bytes::Bytes;

/// One property (5.0 2.2.2.2 Table 2-4), by the name the table gives it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Property {
    PayloadFormatIndicator(u8),
    MessageExpiryInterval(u32),
    ContentType(String),
    ResponseTopic(String),
    CorrelationData(Bytes),
    SubscriptionIdentifier(u32),
    SessionExpiryInterval(u32),
    AssignedClientIdentifier(String),
    ServerKeepAlive(u16),
    AuthenticationMethod(String),
    AuthenticationData(Bytes),
    RequestProblemInformation(u8),
    WillDelayInterval(u32),
    RequestResponseInformation(u8),
    ResponseInformation(String),
    ServerReference(String),
    ReasonString(String),
    ReceiveMaximum(u16),
    TopicAliasMaximum(u16),
    TopicAlias(u16),
    MaximumQos(u8),
    RetainAvailable(u8),
    UserProperty(String, String),
    MaximumPacketSize(u32),
    WildcardSubscriptionAvailable(u8),
    SubscriptionIdentifierAvailable(u8),
    SharedSubscriptionAvailable(u8),
}

/// Where a property block stands: the packets of Table 2-4's last column,
/// and the Will Properties of a CONNECT.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Context {
    Connect,
    Connack,
    Publish,
    Will,
    Puback,
    Pubrec,
    Pubrel,
    Pubcomp,
    Subscribe,
    Suback,
    Unsubscribe,
    Unsuback,
    Disconnect,
    Auth,
}

impl Context {
    fn bit(self) -> u16 {
        1 << (self as u16)
    }
}

/// The value type of a property (5.0 1.5, 2.2.2.2 Table 2-4).
#[derive(Clone, Copy, PartialEq, Eq)]
enum Kind {
    Byte,
    U16,
    U32,
    Varint,
    Utf8,
    Binary,
    Pair,
}

/// Identifier, value type, whether it may be repeated, and the contexts
/// (bits of [`Context`]) that allow it: Table 2-4.
fn rule(id: u8) -> Option<(Kind, bool, u16)> {
    use Context::*;
    let ctx = |c: &[Context]| c.iter().fold(0u16, |m, c| m | c.bit());
    let pub_will = ctx(&[Publish, Will]);
    let every = ctx(&[
        Connect,
        Connack,
        Publish,
        Will,
        Puback,
        Pubrec,
        Pubrel,
        Pubcomp,
        Subscribe,
        Suback,
        Unsubscribe,
        Unsuback,
        Disconnect,
        Auth,
    ]);
    let acks = ctx(&[
        Connack, Puback, Pubrec, Pubrel, Pubcomp, Suback, Unsuback, Disconnect, Auth,
    ]);
    Some(match id {
        0x01 => (Kind::Byte, false, pub_will),
        0x02 => (Kind::U32, false, pub_will),
        0x03 => (Kind::Utf8, false, pub_will),
        0x08 => (Kind::Utf8, false, pub_will),
        0x09 => (Kind::Binary, false, pub_will),
        // Repeated in a PUBLISH to a client (3.3.2.3.8), once in SUBSCRIBE
        // (3.8.2.1.2); the reader checks the SUBSCRIBE case.
        0x0B => (Kind::Varint, true, ctx(&[Publish, Subscribe])),
        0x11 => (Kind::U32, false, ctx(&[Connect, Connack, Disconnect])),
        0x12 => (Kind::Utf8, false, ctx(&[Connack])),
        0x13 => (Kind::U16, false, ctx(&[Connack])),
        0x15 => (Kind::Utf8, false, ctx(&[Connect, Connack, Auth])),
        0x16 => (Kind::Binary, false, ctx(&[Connect, Connack, Auth])),
        0x17 => (Kind::Byte, false, ctx(&[Connect])),
        0x18 => (Kind::U32, false, ctx(&[Will])),
        0x19 => (Kind::Byte, false, ctx(&[Connect])),
        0x1A => (Kind::Utf8, false, ctx(&[Connack])),
        0x1C => (Kind::Utf8, false, ctx(&[Connack, Disconnect])),
        0x1F => (Kind::Utf8, false, acks),
        0x21 => (Kind::U16, false, ctx(&[Connect, Connack])),
        0x22 => (Kind::U16, false, ctx(&[Connect, Connack])),
        0x23 => (Kind::U16, false, ctx(&[Publish])),
        0x24 => (Kind::Byte, false, ctx(&[Connack])),
        0x25 => (Kind::Byte, false, ctx(&[Connack])),
        0x26 => (Kind::Pair, true, every),
        0x27 => (Kind::U32, false, ctx(&[Connect, Connack])),
        0x28 => (Kind::Byte, false, ctx(&[Connack])),
        0x29 => (Kind::Byte, false, ctx(&[Connack])),
        0x2A => (Kind::Byte, false, ctx(&[Connack])),
        _ => return None,
    })
}

impl Property {
    /// The Property Identifier (Table 2-4).
    pub fn id(&self) -> u8 {
        use Property::*;
        match self {
            PayloadFormatIndicator(_) => 0x01,
            MessageExpiryInterval(_) => 0x02,
            ContentType(_) => 0x03,
            ResponseTopic(_) => 0x08,
            CorrelationData(_) => 0x09,
            SubscriptionIdentifier(_) => 0x0B,
            SessionExpiryInterval(_) => 0x11,
            AssignedClientIdentifier(_) => 0x12,
            ServerKeepAlive(_) => 0x13,
            AuthenticationMethod(_) => 0x15,
            AuthenticationData(_) => 0x16,
            RequestProblemInformation(_) => 0x17,
            WillDelayInterval(_) => 0x18,
            RequestResponseInformation(_) => 0x19,
            ResponseInformation(_) => 0x1A,
            ServerReference(_) => 0x1C,
            ReasonString(_) => 0x1F,
            ReceiveMaximum(_) => 0x21,
            TopicAliasMaximum(_) => 0x22,
            TopicAlias(_) => 0x23,
            MaximumQos(_) => 0x24,
            RetainAvailable(_) => 0x25,
            UserProperty(..) => 0x26,
            MaximumPacketSize(_) => 0x27,
            WildcardSubscriptionAvailable(_) => 0x28,
            SubscriptionIdentifierAvailable(_) => 0x29,
            SharedSubscriptionAvailable(_) => 0x2A,
        }
    }

    /// The value a byte or integer property may not have, as the sections
    /// of Table 2-4's properties rule it (a Protocol Error): `Some(value)`
    /// when this one is not allowed.
    fn forbidden_value(&self) -> Option<u32> {
        use Property::*;
        match *self {
            // 3.3.2.3.2, 3.1.2.11.6, 3.1.2.11.7, 3.2.2.3.4, 3.2.2.3.5,
            // 3.2.2.3.11-13: 0 or 1 only.
            PayloadFormatIndicator(v)
            | RequestProblemInformation(v)
            | RequestResponseInformation(v)
            | MaximumQos(v)
            | RetainAvailable(v)
            | WildcardSubscriptionAvailable(v)
            | SubscriptionIdentifierAvailable(v)
            | SharedSubscriptionAvailable(v)
                if v > 1 =>
            {
                Some(u32::from(v))
            }
            // 3.1.2.11.3, 3.2.2.3.3: Receive Maximum 0.
            ReceiveMaximum(0) => Some(0),
            // 3.1.2.11.4, 3.2.2.3.6: Maximum Packet Size 0.
            MaximumPacketSize(0) => Some(0),
            // 3.3.2.3.8, 3.8.2.1.2: Subscription Identifier 0.
            SubscriptionIdentifier(0) => Some(0),
            _ => None,
        }
    }

    fn write(&self, out: &mut Vec<u8>) {
        use Property::*;
        out.push(self.id());
        match self {
            PayloadFormatIndicator(v)
            | RequestProblemInformation(v)
            | RequestResponseInformation(v)
            | MaximumQos(v)
            | RetainAvailable(v)
            | WildcardSubscriptionAvailable(v)
            | SubscriptionIdentifierAvailable(v)
            | SharedSubscriptionAvailable(v) => out.push(*v),
            ServerKeepAlive(v) | ReceiveMaximum(v) | TopicAliasMaximum(v) | TopicAlias(v) => {
                write::u16(out, *v)
            }
            MessageExpiryInterval(v)
            | SessionExpiryInterval(v)
            | WillDelayInterval(v)
            | MaximumPacketSize(v) => write::u32(out, *v),
            SubscriptionIdentifier(v) => write::varint(out, *v),
            ContentType(s)
            | ResponseTopic(s)
            | AssignedClientIdentifier(s)
            | AuthenticationMethod(s)
            | ResponseInformation(s)
            | ServerReference(s)
            | ReasonString(s) => write::string(out, s),
            CorrelationData(b) | AuthenticationData(b) => write::binary(out, b),
            UserProperty(k, v) => {
                write::string(out, k);
                write::string(out, v);
            }
        }
    }
}

/// A property block, in the order it was read or built (so a packet
/// written back is the packet read).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Properties(pub Vec<Property>);

impl Properties {
    pub fn new() -> Properties {
        Properties(Vec::new())
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    pub fn push(&mut self, p: Property) {
        self.0.push(p);
    }

    pub fn iter(&self) -> impl Iterator<Item = &Property> {
        self.0.iter()
    }

    /// The first property for which `f` gives a value.
    pub fn find<T>(&self, f: impl Fn(&Property) -> Option<T>) -> Option<T> {
        self.0.iter().find_map(f)
    }

    /// The User Properties, in order (5.0 3.3.2.3.7: order kept).
    pub fn user(&self) -> impl Iterator<Item = (&str, &str)> {
        self.0.iter().filter_map(|p| match p {
            Property::UserProperty(k, v) => Some((k.as_str(), v.as_str())),
            _ => None,
        })
    }

    /// The encoded size of the properties (without the Property Length).
    pub fn len(&self) -> usize {
        let mut out = Vec::new();
        for p in &self.0 {
            p.write(&mut out);
        }
        out.len()
    }

    /// Appends the Property Length and the properties.
    pub fn write(&self, out: &mut Vec<u8>) {
        let mut body = Vec::new();
        for p in &self.0 {
            p.write(&mut body);
        }
        write::varint(out, body.len() as u32);
        out.extend_from_slice(&body);
    }

    /// Reads a Property Length and the properties it covers, allowed in
    /// `ctx`. Errors: Malformed for an unknown identifier, one not allowed
    /// in `ctx`, or a value that overruns the block; Protocol Error for a
    /// repeated property that may appear once, or a value its section
    /// forbids (2.2.2.2).
    pub(crate) fn read(r: &mut Reader, ctx: Context) -> Result<Properties, MqttError> {
        let len = r.varint()? as usize;
        let outer = r.limit(len)?;
        let mut props = Vec::new();
        let mut seen = [false; 0x2B];
        while !r.is_empty() {
            let at = r.pos();
            let id = r.varint()?;
            let id8 = u8::try_from(id)
                .map_err(|_| r.error_at(at, ErrorKind::UnknownProperty { id: 0xFF }))?;
            let Some((kind, repeats, allowed)) = rule(id8) else {
                return Err(r.error_at(at, ErrorKind::UnknownProperty { id: id8 }));
            };
            if allowed & ctx.bit() == 0 {
                return Err(r.error_at(at, ErrorKind::PropertyNotAllowed { id: id8 }));
            }
            let once = !repeats || (id8 == 0x0B && ctx == Context::Subscribe);
            if once && seen[id8 as usize] {
                return Err(r.error_at(at, ErrorKind::DuplicateProperty { id: id8 }));
            }
            seen[id8 as usize] = true;
            let p = read_value(r, id8, kind)?;
            if let Some(value) = p.forbidden_value() {
                return Err(r.error_at(at, ErrorKind::PropertyValue { id: id8, value }));
            }
            props.push(p);
        }
        r.restore_end(outer);
        Ok(Properties(props))
    }
}

fn read_value(r: &mut Reader, id: u8, kind: Kind) -> Result<Property, MqttError> {
    use Property::*;
    Ok(match kind {
        Kind::Byte => {
            let v = r.u8()?;
            match id {
                0x01 => PayloadFormatIndicator(v),
                0x17 => RequestProblemInformation(v),
                0x19 => RequestResponseInformation(v),
                0x24 => MaximumQos(v),
                0x25 => RetainAvailable(v),
                0x28 => WildcardSubscriptionAvailable(v),
                0x29 => SubscriptionIdentifierAvailable(v),
                _ => SharedSubscriptionAvailable(v),
            }
        }
        Kind::U16 => {
            let v = r.u16()?;
            match id {
                0x13 => ServerKeepAlive(v),
                0x21 => ReceiveMaximum(v),
                0x22 => TopicAliasMaximum(v),
                _ => TopicAlias(v),
            }
        }
        Kind::U32 => {
            let v = r.u32()?;
            match id {
                0x02 => MessageExpiryInterval(v),
                0x11 => SessionExpiryInterval(v),
                0x18 => WillDelayInterval(v),
                _ => MaximumPacketSize(v),
            }
        }
        Kind::Varint => SubscriptionIdentifier(r.varint()?),
        Kind::Utf8 => {
            let s = r.string()?;
            match id {
                0x03 => ContentType(s),
                0x08 => ResponseTopic(s),
                0x12 => AssignedClientIdentifier(s),
                0x15 => AuthenticationMethod(s),
                0x1A => ResponseInformation(s),
                0x1C => ServerReference(s),
                _ => ReasonString(s),
            }
        }
        Kind::Binary => {
            let b = r.binary()?;
            match id {
                0x09 => CorrelationData(b),
                _ => AuthenticationData(b),
            }
        }
        Kind::Pair => {
            let k = r.string()?;
            let v = r.string()?;
            UserProperty(k, v)
        }
    })
}
