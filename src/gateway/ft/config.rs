//! The `fault_tolerance:` section (docs/config.md `fault_tolerance`,
//! docs/rendezvous.md "mqgate's own roles"): the fault tolerance group the
//! gateway joins and the roles that run only while it is the group's
//! active member.
//!
//! The parameters are those of a Rendezvous member ("tibrvftMember_Create()"
//! in the TIBCO Rendezvous C Reference) in milliseconds, with the active
//! goal fixed at 1: every role listed must have exactly one owner.

use std::collections::HashMap;
use std::time::Duration;

use mqgate_codecs::rv::{Mode, Subject};
use serde::Deserialize;

use crate::config::{ChannelDef, Config};
use crate::rv::ft::FtParams;
use crate::rv::ft::heartbeat;
use crate::rv::ft::params::{MAX_INTERVAL, MIN_HEARTBEAT, check_group};
use crate::rv::route::gate::Gates;

/// Default heartbeat interval, ms (**mqgate**; Rendezvous has no default:
/// every program passes its own. These follow the TIBCO EMS server's fault
/// tolerance defaults, "Heartbeat Parameters": heartbeat 3 s).
pub const DEFAULT_HEARTBEAT_MS: u64 = 3_000;
/// Default activation interval, ms (as the TIBCO EMS server's: 10 s).
pub const DEFAULT_ACTIVATION_MS: u64 = 10_000;
/// Default weight: equal weights rank by seniority (docs/rendezvous.md
/// "Ranks and actions").
pub const DEFAULT_WEIGHT: u16 = 1;

/// The fault tolerance group of the gateway's own roles.
#[derive(Clone, Debug, Deserialize, PartialEq, Eq)]
#[serde(deny_unknown_fields)]
pub struct FaultToleranceConfig {
    /// The group name: a reusable name ("Reusable Names": subject syntax,
    /// no wildcard, no reserved first element), at most 190 bytes. Every
    /// gateway of the group gives the same name.
    pub group: String,
    /// This gateway's weight, 1 to 65535: the heaviest gateway that is
    /// alive is the active one ("Rank and Weight").
    #[serde(default = "default_weight")]
    pub weight: u16,
    /// How often the gateway heartbeats to the group, ms (at least 10).
    #[serde(default = "default_heartbeat")]
    pub heartbeat_ms: u64,
    /// 0 (no prepare hint), or between `heartbeat_ms` and `activation_ms`:
    /// the silence of the active gateway after which the next in line
    /// prepares to take over (PREPARE_TO_ACTIVATE), ms.
    #[serde(default)]
    pub preparation_ms: u64,
    /// The silence after which the active gateway counts as lost and the
    /// next in line activates, ms; more than `heartbeat_ms`.
    #[serde(default = "default_activation")]
    pub activation_ms: u64,
    /// The roles that run only on the active gateway.
    #[serde(default)]
    pub roles: RolesConfig,
}

/// The single-owner roles of a gateway (docs/rendezvous.md "mqgate's own
/// roles").
#[derive(Clone, Debug, Default, Deserialize, PartialEq, Eq)]
#[serde(default, deny_unknown_fields)]
pub struct RolesConfig {
    /// The SBS server of the `messageq:` group (queue 99; docs/messageq.md).
    pub sbs_server: bool,
    /// Sender channels of `channels:` (by name): each serves its
    /// transmission queue only while the gateway is active.
    pub sender_channels: Vec<String>,
    /// Queue spaces (QSPACE names of the DMCONFIG) the gateway serves as
    /// the TEDG only while it is active (docs/tuxedo.md).
    pub tedg: Vec<String>,
}

fn default_weight() -> u16 {
    DEFAULT_WEIGHT
}

fn default_heartbeat() -> u64 {
    DEFAULT_HEARTBEAT_MS
}

fn default_activation() -> u64 {
    DEFAULT_ACTIVATION_MS
}

impl FaultToleranceConfig {
    /// The member parameters: the weight, active goal 1 and the three
    /// intervals. Checked by [`FaultToleranceConfig::problems`].
    pub fn params(&self) -> FtParams {
        FtParams {
            weight: self.weight,
            active_goal: 1,
            heartbeat: Duration::from_millis(self.heartbeat_ms),
            preparation: Duration::from_millis(self.preparation_ms),
            activation: Duration::from_millis(self.activation_ms),
        }
    }

    /// Every problem of the section within `config`, as (path under
    /// `fault_tolerance.`, message): the group name, the weight, the
    /// interval rules of "tibrvftMember_Create()", roles that name nothing
    /// this configuration has, and routing gates that would keep the
    /// group's heartbeats from crossing to the other gateways.
    pub fn problems(&self, config: &Config) -> Vec<(String, String)> {
        let mut out = Vec::new();
        let mut push = |path: &str, message: String| out.push((path.to_string(), message));
        if let Err(e) = check_group(&self.group) {
            let status = e.status();
            push(
                "group",
                match status.name() {
                    Some(n) => format!("{e} ({n} {})", status.0),
                    None => e.to_string(),
                },
            );
        }
        if self.weight == 0 {
            push(
                "weight",
                "must be 1 to 65535 (weight 0 is reserved for a member Rendezvous disables, \"Rank and Weight\")".into(),
            );
        }
        let max_ms = MAX_INTERVAL.as_millis() as u64;
        let min_hb = MIN_HEARTBEAT.as_millis() as u64;
        for (key, ms) in [
            ("heartbeat_ms", self.heartbeat_ms),
            ("preparation_ms", self.preparation_ms),
            ("activation_ms", self.activation_ms),
        ] {
            if ms > max_ms {
                push(key, format!("{ms} ms is longer than one day ({max_ms} ms)"));
            }
        }
        if self.heartbeat_ms < min_hb {
            push(
                "heartbeat_ms",
                format!(
                    "{} ms is shorter than {min_hb} ms, the shortest heartbeat interval",
                    self.heartbeat_ms
                ),
            );
        } else if self.heartbeat_ms >= self.activation_ms {
            push(
                "heartbeat_ms",
                format!(
                    "the heartbeat interval ({} ms) must be less than the activation interval ({} ms) (\"tibrvftMember_Create()\")",
                    self.heartbeat_ms, self.activation_ms
                ),
            );
        }
        if self.preparation_ms != 0
            && (self.preparation_ms <= self.heartbeat_ms
                || self.preparation_ms >= self.activation_ms)
        {
            push(
                "preparation_ms",
                format!(
                    "the preparation interval ({} ms) must be 0 (no prepare hint) or greater than the heartbeat interval ({} ms) and less than the activation interval ({} ms) (\"tibrvftMember_Create()\")",
                    self.preparation_ms, self.heartbeat_ms, self.activation_ms
                ),
            );
        }
        let roles = &self.roles;
        if !roles.sbs_server && roles.sender_channels.is_empty() && roles.tedg.is_empty() {
            push(
                "roles",
                "names no role: give sbs_server: true, sender_channels or tedg".into(),
            );
        }
        if roles.sbs_server && config.messageq.is_none() {
            push(
                "roles.sbs_server",
                "there is no SBS server without a messageq: section".into(),
            );
        }
        let mut seen: HashMap<&str, usize> = HashMap::new();
        for (i, name) in roles.sender_channels.iter().enumerate() {
            let path = format!("roles.sender_channels[{i}]");
            if let Some(j) = seen.insert(name, i) {
                push(&path, format!("{name:?} is already sender_channels[{j}]"));
                continue;
            }
            match config.channels.iter().position(|c| c.name() == name) {
                Some(at) => {
                    if matches!(config.channels[at], ChannelDef::Receiver(_)) {
                        push(
                            &path,
                            format!(
                                "channels[{at}] {name:?} is a receiver channel: only sender channels are roles (a receiver serves whichever sender connects)"
                            ),
                        );
                    }
                    if matches!(config.channels[at], ChannelDef::MqClient(_)) {
                        push(
                            &path,
                            format!(
                                "channels[{at}] {name:?} is an mq-client channel: only sender channels are roles (an mq-client channel runs on every gateway that defines it; the queue manager's syncpoint keeps each message in one place)"
                            ),
                        );
                    }
                }
                None => push(&path, format!("no channel {name:?} in channels")),
            }
        }
        let mut seen: HashMap<&str, usize> = HashMap::new();
        for (i, qspace) in roles.tedg.iter().enumerate() {
            let path = format!("roles.tedg[{i}]");
            if qspace.is_empty() {
                push(&path, "an empty QSPACE name".into());
            } else if let Some(j) = seen.insert(qspace, i) {
                push(&path, format!("{qspace:?} is already tedg[{j}]"));
            }
        }
        match &config.rv.routing {
            None => push(
                "group",
                "the gateways of a group hear each other over Rendezvous routing links: configure rv.routing (docs/rendezvous.md \"Routing between gateways\")".into(),
            ),
            Some(r) if check_group(&self.group).is_ok() => {
                let text = heartbeat::subject(&self.group);
                if let Ok(subject) = Subject::parse(&text, Mode::Listen) {
                    let gates = Gates::of(r);
                    if !gates.exports(&subject) {
                        push(
                            "group",
                            format!("rv.routing.export covers no subject of {text}: the other gateways would never hear this one's heartbeats (export '_RVFT.>')"),
                        );
                    }
                    if gates.interest(&subject).is_none() {
                        push(
                            "group",
                            format!("rv.routing.import covers no subject of {text}: this gateway would never hear the others' heartbeats (import '_RVFT.>')"),
                        );
                    }
                }
            }
            Some(_) => {}
        }
        out
    }
}

/// What the loaded group initialization file and DMCONFIG say about the
/// roles, as (path under `fault_tolerance.`, message): an SBS server role
/// where `ENABLE_SBS NO` leaves no server, a queue space no QSPACE entry
/// names, queue spaces without a DMCONFIG.
pub fn loaded_problems(
    ft: &FaultToleranceConfig,
    messageq: Option<&crate::sbs::Loaded>,
    tedg: Option<&crate::tedg::Loaded>,
) -> Vec<(String, String)> {
    let mut out = Vec::new();
    if ft.roles.sbs_server && messageq.is_some_and(|m| !m.enable_sbs) {
        out.push((
            "roles.sbs_server".into(),
            "the group initialization file says ENABLE_SBS NO: the group has no SBS server".into(),
        ));
    }
    for (i, qspace) in ft.roles.tedg.iter().enumerate() {
        let path = format!("roles.tedg[{i}]");
        match tedg {
            None => out.push((
                path,
                format!("{qspace:?}: no DMCONFIG is loaded (dmconfig: or mqgate run --dmconfig), so there is no queue space to serve"),
            )),
            Some(t) => {
                if !t.dm.remote_services.qspaces.iter().any(|q| q.name == *qspace) {
                    out.push((path, format!("no QSPACE entry of the DMCONFIG is named {qspace:?}")));
                }
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use crate::config::Config;

    /// A routing section that carries the group's heartbeats both ways.
    const ROUTING: &str = "rv:
  routing:
    router: GWA
    listen: 127.0.0.1:0
    export: ['_RVFT.>']
    import: [{subject: '_RVFT.>'}]
";

    const CHANNELS: &str = "queues:
  - {type: local, name: GWR, usage: xmitq}
channels:
  - {type: receiver, name: R.TO.A}
  - {type: sender, name: A.TO.R, xmit_queue: GWR, connect: '127.0.0.1:1414'}
";

    fn errors(section: &str) -> Vec<String> {
        let text = format!("{ROUTING}{CHANNELS}{section}");
        match Config::from_yaml(&text, "ft.yaml") {
            Ok(_) => Vec::new(),
            Err(e) => e.errors.iter().map(ToString::to_string).collect(),
        }
    }

    #[test]
    fn defaults_and_the_member_parameters() {
        let text = format!(
            "{ROUTING}{CHANNELS}fault_tolerance:\n  group: MQGATE.FT\n  roles:\n    sender_channels: [A.TO.R]\n"
        );
        let c = Config::from_yaml(&text, "ft.yaml").unwrap();
        let ft = c.fault_tolerance.unwrap();
        // docs/config.md `fault_tolerance`: weight 1, heartbeat 3 s,
        // activation 10 s (the TIBCO EMS server's "Heartbeat Parameters"
        // defaults), no preparation interval; the active goal is 1.
        assert_eq!(
            (
                ft.weight,
                ft.heartbeat_ms,
                ft.preparation_ms,
                ft.activation_ms
            ),
            (1, 3000, 0, 10_000)
        );
        let p = ft.params();
        assert_eq!(p.active_goal, 1);
        assert_eq!(p.heartbeat, std::time::Duration::from_secs(3));
        assert_eq!(p.activation, std::time::Duration::from_secs(10));
        assert!(p.check().is_ok());
    }

    #[test]
    fn the_interval_rules_of_tibrvftmember_create_are_placed() {
        // C Reference "tibrvftMember_Create()": heartbeat < activation;
        // preparation 0 or heartbeat < preparation < activation. Lines:
        // the section starts on line 12 (after ROUTING's 6 and CHANNELS' 5).
        let e = errors(
            "fault_tolerance:
  group: MQGATE.FT
  weight: 0
  heartbeat_ms: 1000
  preparation_ms: 1500
  activation_ms: 1000
  roles: {sender_channels: [A.TO.R]}
",
        );
        assert_eq!(
            e,
            [
                "14:11: fault_tolerance.weight: must be 1 to 65535 (weight 0 is reserved for a member Rendezvous disables, \"Rank and Weight\")",
                "15:17: fault_tolerance.heartbeat_ms: the heartbeat interval (1000 ms) must be less than the activation interval (1000 ms) (\"tibrvftMember_Create()\")",
                "16:19: fault_tolerance.preparation_ms: the preparation interval (1500 ms) must be 0 (no prepare hint) or greater than the heartbeat interval (1000 ms) and less than the activation interval (1000 ms) (\"tibrvftMember_Create()\")",
            ]
        );
        let e = errors(
            "fault_tolerance:\n  group: G\n  heartbeat_ms: 5\n  activation_ms: 90000000\n  roles: {sender_channels: [A.TO.R]}\n",
        );
        assert_eq!(
            e,
            [
                "15:18: fault_tolerance.activation_ms: 90000000 ms is longer than one day (86400000 ms)",
                "14:17: fault_tolerance.heartbeat_ms: 5 ms is shorter than 10 ms, the shortest heartbeat interval",
            ]
        );
    }

    #[test]
    fn group_names_are_reusable_names() {
        // "Reusable Names": no empty element, no wildcard, no reserved
        // first element (TIBRV_INVALID_SUBJECT 20).
        let e = errors("fault_tolerance:\n  group: A..B\n  roles: {sender_channels: [A.TO.R]}\n");
        assert_eq!(
            e,
            [
                "13:10: fault_tolerance.group: invalid group name \"A..B\": element 2 is empty (TIBRV_INVALID_SUBJECT 20)"
            ]
        );
        let e = errors("fault_tolerance:\n  group: A.*\n  roles: {sender_channels: [A.TO.R]}\n");
        assert_eq!(e.len(), 1);
        assert!(e[0].starts_with("13:10: fault_tolerance.group: invalid group name \"A.*\": element 2 is the wildcard '*'"), "{e:?}");
    }

    #[test]
    fn roles_must_name_what_the_configuration_has() {
        let e = errors(
            "fault_tolerance:
  group: MQGATE.FT
  roles:
    sbs_server: true
    sender_channels: [R.TO.A, NOPE, A.TO.R, A.TO.R]
    tedg: ['', BILLING, BILLING]
",
        );
        assert_eq!(
            e,
            [
                "15:17: fault_tolerance.roles.sbs_server: there is no SBS server without a messageq: section",
                "16:23: fault_tolerance.roles.sender_channels[0]: channels[0] \"R.TO.A\" is a receiver channel: only sender channels are roles (a receiver serves whichever sender connects)",
                "16:31: fault_tolerance.roles.sender_channels[1]: no channel \"NOPE\" in channels",
                "16:45: fault_tolerance.roles.sender_channels[3]: \"A.TO.R\" is already sender_channels[2]",
                "17:12: fault_tolerance.roles.tedg[0]: an empty QSPACE name",
                "17:25: fault_tolerance.roles.tedg[2]: \"BILLING\" is already tedg[1]",
            ]
        );
        let e = errors("fault_tolerance:\n  group: MQGATE.FT\n");
        assert_eq!(
            e,
            [
                "13:8: fault_tolerance.roles: names no role: give sbs_server: true, sender_channels or tedg"
            ]
        );
    }

    #[test]
    fn heartbeats_must_cross_the_routing_links() {
        let section =
            "fault_tolerance:\n  group: MQGATE.FT\n  roles: {sender_channels: [A.TO.R]}\n";
        let none = Config::from_yaml(&format!("{CHANNELS}{section}"), "ft.yaml").unwrap_err();
        assert_eq!(
            none.errors
                .iter()
                .map(ToString::to_string)
                .collect::<Vec<_>>(),
            [
                "7:10: fault_tolerance.group: the gateways of a group hear each other over Rendezvous routing links: configure rv.routing (docs/rendezvous.md \"Routing between gateways\")"
            ]
        );
        // Export and import of other subjects only ("Subject Gating").
        let gated = "rv:\n  routing:\n    router: GWA\n    listen: 127.0.0.1:0\n    export: ['ORDERS.>']\n    import: [{subject: '_RVFT.OTHER'}]\n";
        let e = Config::from_yaml(&format!("{gated}{CHANNELS}{section}"), "ft.yaml").unwrap_err();
        assert_eq!(
            e.errors.iter().map(ToString::to_string).collect::<Vec<_>>(),
            [
                "13:10: fault_tolerance.group: rv.routing.export covers no subject of _RVFT.MQGATE.FT: the other gateways would never hear this one's heartbeats (export '_RVFT.>')",
                "13:10: fault_tolerance.group: rv.routing.import covers no subject of _RVFT.MQGATE.FT: this gateway would never hear the others' heartbeats (import '_RVFT.>')",
            ]
        );
    }

    #[test]
    fn unknown_keys_and_weights_past_65535_are_placed_by_serde() {
        let e = errors("fault_tolerance:\n  group: G\n  active_goal: 2\n");
        assert_eq!(e.len(), 1);
        assert!(
            e[0].starts_with("14:3: fault_tolerance: unknown field `active_goal`"),
            "{e:?}"
        );
        let e = errors("fault_tolerance:\n  group: G\n  weight: 70000\n");
        assert_eq!(e.len(), 1);
        assert!(e[0].contains("14:11") && e[0].contains("70000"), "{e:?}");
    }
}
