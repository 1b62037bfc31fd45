//! `mqgate sbs register|deregister|status`: builds the SBS requests with the
//! codecs (SBS_REGISTER_REQ, SBS_DEREGISTER_REQ, SBS_STATUS_REQ of `p_msg.h`
//! V4.0-08, big-endian), puts them to the SBS server's queue 99 with the PAMS
//! put, and reads the response from the response queue by its correlation id
//! (BEA MessageQ 5.0 Programmer's Guide, "Broadcasting Messages";
//! docs/messageq.md "PAMS API").

use super::client::{DEFAULT_GATEWAY, Gateway};
use super::out;
use super::pams::{
    CallError, EXIT_NO_MESSAGE, addr_arg, area_of, attach_temporary, exit, get_json, put_json,
};
use base64::Engine;
use base64::engine::general_purpose::STANDARD as BASE64;
use clap::{Args, Subcommand};
use mqgate_codecs::pams::Endian;
use mqgate_codecs::pams::QAddress;
use mqgate_codecs::pams::address::{MOT_RANGE, Mot};
use mqgate_codecs::pams::rules::{OperandLength, Operator, SelectionRule, Selector};
use mqgate_codecs::pams::sbs::StatusRespMot;
use mqgate_codecs::pams::sbs::register::SBS_VERSION;
use mqgate_codecs::pams::sbs::status_msg::STATUS_RESP_HEAD_SIZE;
use mqgate_codecs::pams::sbs::{
    DeregisterReq, DeregisterResp, MSG_CLAS_PAMS, RegisterReq, RegisterResp, SbsType, StatusReq,
    StatusResp,
};
use mqgate_codecs::pams::status::SbsStatus;
use serde_json::json;
use std::process::ExitCode;
use std::time::Duration;

/// The byte order of the requests the CLI sends.
const ORDER: Endian = Endian::Big;

/// `mqgate sbs ...`.
#[derive(Subcommand, Debug)]
pub enum SbsCommand {
    /// Register a queue for a MOT (SBS_REGISTER_REQ); prints the SBS_REGISTER_RESP.
    Register(RegisterArgs),
    /// Remove registrations (SBS_DEREGISTER_REQ); prints the SBS_DEREGISTER_RESP.
    Deregister(DeregisterArgs),
    /// MOT counters of the SBS server (SBS_STATUS_REQ); one line per MOT.
    Status(StatusArgs),
}

const REGISTER_EXITS: &str = "Exit status: 0 PSYM_SBS_SUCCESS (without --ack: sent, and no refusal came within a second); 1 refused: by the SBS server (its status is printed), or by the gateway (its PAMS status is printed; also when the request's put was not PAMS__SUCCESS, e.g. 11 PAMS__DISC_SUCCESS when queue 99 cannot take it), or an answer that cannot be read; 2 gateway unreachable, or a usage error (an argument that is not what it must be); 3 no response within --wait.";
const DEREGISTER_EXITS: &str = "Exit status: 0 PSYM_SBS_SUCCESS; 1 refused: by the SBS server (its status is printed, e.g. 1012 PSYM_SBS_NOMATCH), or by the gateway (its PAMS status is printed; also when the request's put was not PAMS__SUCCESS, e.g. 11 PAMS__DISC_SUCCESS when queue 99 cannot take it), or an answer that cannot be read; 2 gateway unreachable, or a usage error (an argument that is not what it must be); 3 no response within --wait.";
const STATUS_EXITS: &str = "Exit status: 0 the counters are printed; 1 refused: by the SBS server (its status is printed), or by the gateway (its PAMS status is printed; also when the request's put was not PAMS__SUCCESS, e.g. 11 PAMS__DISC_SUCCESS when queue 99 cannot take it), or an answer that cannot be read; 2 gateway unreachable, or a usage error (an argument that is not what it must be); 3 no response within --wait.";

fn mot_arg(s: &str) -> Result<u16, String> {
    s.parse::<u16>()
        .ok()
        .filter(|n| MOT_RANGE.contains(n))
        .ok_or_else(|| {
            format!("{s:?} is no MOT: MOTs are 4000 to 6000 (Programmer's Guide, Table 3-1)")
        })
}

fn server_arg(s: &str) -> Result<QAddress, String> {
    let a = addr_arg(s)?;
    if a.queue != mqgate_codecs::pams::address::queues::PAMS_SBS_SERVER {
        return Err(format!(
            "{s:?}: an SBS server is queue 99 of its group (`G.99`, `0.99` for this group)"
        ));
    }
    Ok(a)
}

/// Options of `mqgate sbs register`.
#[derive(Args, Debug)]
#[command(after_help = REGISTER_EXITS)]
pub struct RegisterArgs {
    /// The MOT, 4000-6000.
    #[arg(long, value_parser = mot_arg)]
    pub mot: u16,
    /// The distribution queue `group.queue` that gets the broadcasts.
    #[arg(long, value_parser = addr_arg)]
    pub queue: QAddress,
    /// A selection rule `SELECTOR OPER LENGTH OPERAND`: SELECTOR CLASS, TYPE,
    /// SOURCE (or their values -2, -3, -1) or a zero-based byte offset; OPER
    /// ANY EQ NEQ GTR LT GTRE LTE AND; LENGTH 1, 2 or 4; OPERAND a number
    /// that fits LENGTH bytes (1: -128 to 255, 2: -32768 to 65535, 4: any
    /// 32-bit signed number; for SOURCE also `group.queue`).
    #[arg(long = "rule", value_parser = rule_arg, allow_hyphen_values = true)]
    pub rules: Vec<SelectionRule>,
    /// Every rule must hold (PSEL_ALL_RULES, the default).
    #[arg(long, conflicts_with = "any")]
    pub all: bool,
    /// One rule must hold (PSEL_ANY_RULE).
    #[arg(long)]
    pub any: bool,
    /// Ask for SBS_REGISTER_RESP (req_ack); without it the server answers only a refusal.
    #[arg(long)]
    pub ack: bool,
    /// Ask for SBS_SEQUENCE_GAP notices (seq_gap_notify).
    #[arg(long)]
    pub seq_gap: bool,
    /// Set auto_dereg: the registration ends when the attachment of --queue
    /// ends (POST /v1/pams/attachments; docs/messageq.md "Attachments").
    #[arg(long)]
    pub auto_dereg: bool,
    #[command(flatten)]
    pub common: Common,
}

/// Options of `mqgate sbs deregister`.
#[derive(Args, Debug)]
#[command(after_help = DEREGISTER_EXITS)]
pub struct DeregisterArgs {
    /// The MOT, 4000-6000.
    #[arg(long, value_parser = mot_arg)]
    pub mot: u16,
    /// The registered queue `group.queue`.
    #[arg(long, value_parser = addr_arg)]
    pub queue: QAddress,
    /// Only this registration (0, the default: every one of the MOT and
    /// queue; any other value the server does not know is PSYM_SBS_NOMATCH).
    #[arg(long, default_value_t = 0, allow_negative_numbers = true)]
    pub reg_id: i32,
    #[command(flatten)]
    pub common: Common,
}

/// Options of `mqgate sbs status`.
#[derive(Args, Debug)]
#[command(after_help = STATUS_EXITS)]
pub struct StatusArgs {
    /// Only this MOT (default: 4000 to 6000).
    #[arg(long, value_parser = mot_arg)]
    pub mot: Option<u16>,
    /// Zero the counters after reporting (reset).
    #[arg(long)]
    pub reset: bool,
    #[command(flatten)]
    pub common: Common,
}

/// What every `sbs` command takes.
#[derive(Args, Debug)]
pub struct Common {
    /// Where the response goes and is read from (`group.queue`); by
    /// default a temporary queue attached for the call (pams_attach_q) and
    /// deleted at its end (pams_exit).
    #[arg(long, value_parser = addr_arg)]
    pub resp_q: Option<QAddress>,
    /// The SBS server the request goes to: `0.99` (this group's, the
    /// default) or another group's, e.g. `10.99` (docs/messageq.md "Between
    /// groups").
    #[arg(long, value_parser = server_arg, default_value = "0.99")]
    pub server: QAddress,
    /// How long to wait for the response, in ms.
    #[arg(long, default_value_t = 10_000, value_parser = clap::value_parser!(u64).range(0..=super::MAX_MS))]
    pub wait: u64,
    /// Gateway base URL.
    #[arg(long, default_value = DEFAULT_GATEWAY)]
    pub gateway: String,
}

/// A `--rule` argument as a [`SelectionRule`] (BEA MessageQ 5.0 operator
/// values). Errors name the rule and what is wrong: a usage error, exit 2.
fn rule_arg(s: &str) -> Result<SelectionRule, String> {
    rule_words(s).map_err(|e| format!("rule {s:?}: {e}"))
}

fn rule_words(s: &str) -> Result<SelectionRule, String> {
    let parts: Vec<&str> = s.split_whitespace().collect();
    let [sel, op, len, operand] = parts.as_slice() else {
        return Err(
            "a rule is SELECTOR OPER LENGTH OPERAND (4 words, e.g. 'CLASS EQ 4 100')".into(),
        );
    };
    let selector = match sel.to_ascii_uppercase().as_str() {
        "CLASS" => Selector::Class,
        "TYPE" => Selector::Type,
        "SOURCE" => Selector::Source,
        // PSEL_SOURCE -1, PSEL_CLASS -2, PSEL_TYPE -3 (Programmer's Guide,
        // Table 3-2) or a byte offset.
        n => n
            .parse::<i32>()
            .ok()
            .and_then(Selector::from_offset)
            .ok_or_else(|| {
                format!(
                    "SELECTOR {sel:?} is CLASS (-2), TYPE (-3), SOURCE (-1) or a byte offset 0 to 2147483647"
                )
            })?,
    };
    let upper = op.to_ascii_uppercase();
    let operator = Operator::ALL
        .into_iter()
        .find(|o| o.symbol().strip_prefix("PSEL_OPER_") == Some(upper.as_str()))
        .ok_or_else(|| format!("OPER {op:?} is ANY, EQ, NEQ, GTR, LT, GTRE, LTE or AND"))?;
    let length = len
        .parse::<i32>()
        .ok()
        .and_then(OperandLength::from_value)
        .ok_or_else(|| format!("LENGTH {len:?} is 1, 2 or 4"))?;
    let value = if selector == Selector::Source && operand.contains('.') {
        // PSEL_SOURCE compares the q_address as an int32 in the
        // registration's byte order (docs/messageq.md "Comparisons").
        QAddress::parse(operand)
            .map_err(|e| e.to_string())?
            .to_all(ORDER)
    } else {
        operand
            .parse::<i32>()
            .map_err(|_| format!("OPERAND {operand:?} is a 32-bit signed number"))?
    };
    // The operand is compared on its low LENGTH bytes: a value that does
    // not fit them, signed or unsigned, cannot be what was meant.
    let fits = match length {
        OperandLength::One => (-128..=255).contains(&value),
        OperandLength::Two => (-32768..=65535).contains(&value),
        OperandLength::Four => true,
    };
    if !fits {
        let range = match length {
            OperandLength::One => "-128 to 255",
            _ => "-32768 to 65535",
        };
        return Err(format!(
            "OPERAND {operand} does not fit LENGTH {} ({range})",
            length.bytes()
        ));
    }
    Ok(SelectionRule::new(selector, operator, length, value))
}

/// Runs one `sbs` subcommand.
pub fn run(cmd: SbsCommand) -> ExitCode {
    match cmd {
        SbsCommand::Register(a) => register(a),
        SbsCommand::Deregister(a) => deregister(a),
        SbsCommand::Status(a) => status(a),
    }
}

fn random<const N: usize>() -> [u8; N] {
    let mut b = [0u8; N];
    if getrandom::fill(&mut b).is_err() {
        // Unique enough for one run: the time and the process id.
        let t = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_nanos())
            .unwrap_or_default();
        for (i, x) in t
            .to_be_bytes()
            .iter()
            .chain(&std::process::id().to_be_bytes())
            .enumerate()
        {
            if let Some(slot) = b.get_mut(i) {
                *slot = *x;
            }
        }
    }
    b
}

/// Where a request goes and where its answer is read.
#[derive(Clone, Copy, Debug)]
struct Route {
    /// The SBS server: `0.99`, or another group's `G.99`.
    server: QAddress,
    /// The response queue.
    resp_q: QAddress,
}

/// Sends `area` as `msg_type` to the SBS server of `to` with a fresh
/// correlation id, and reads the answer of that id from its response queue:
/// `Ok(None)` when none came within `wait` ms.
fn ask(
    gw: &Gateway,
    msg_type: SbsType,
    area: &[u8],
    to: Route,
    wait: u64,
    expect_answer: bool,
) -> Result<Option<(i16, Vec<u8>, Endian)>, CallError> {
    let corr = hex::encode_upper(random::<32>());
    ask_with(gw, msg_type, area, to, wait, expect_answer, &corr)
}

/// [`ask`] with the correlation id `corr` (64 hex digits).
fn ask_with(
    gw: &Gateway,
    msg_type: SbsType,
    area: &[u8],
    to: Route,
    wait: u64,
    expect_answer: bool,
    corr: &str,
) -> Result<Option<(i16, Vec<u8>, Endian)>, CallError> {
    let resp_q = to.resp_q;
    let put = put_json(
        gw,
        &json!({
            "target": to.server.to_string(),
            "class": MSG_CLAS_PAMS,
            "type": msg_type.code(),
            "resp_q": resp_q.to_string(),
            "correlation_id": corr,
            "endian": "big",
            "data_base64": BASE64.encode(area),
        }),
    )?;
    // The request is on queue 99 only with PAMS__SUCCESS 1; anything else
    // (e.g. 11 PAMS__DISC_SUCCESS: the queue is full, or not defined with
    // ENABLE_SBS NO) means no answer can come.
    if put["status"]["number"].as_i64() != Some(1) {
        return Err(CallError::Refused(put));
    }
    let wait = if expect_answer { wait } else { wait.min(1000) };
    answer(gw, resp_q, wait, corr)
}

/// The next message of correlation id `corr` on `resp_q`: its type, area
/// and byte order.
fn answer(
    gw: &Gateway,
    resp_q: QAddress,
    wait: u64,
    corr: &str,
) -> Result<Option<(i16, Vec<u8>, Endian)>, CallError> {
    let Some(v) = get_json(gw, &resp_q.to_string(), wait, Some(corr))? else {
        return Ok(None);
    };
    let area = area_of(&v).map_err(CallError::Transport)?;
    // PSYM_LITTLE_ENDIAN 0 / PSYM_BIG_ENDIAN 1 (p_symbol.h 5.0).
    let order = if v["endian"] == 0 {
        Endian::Little
    } else {
        Endian::Big
    };
    Ok(Some((v["type"].as_i64().unwrap_or(0) as i16, area, order)))
}

fn status_text(s: SbsStatus) -> String {
    match s.name() {
        Some(n) => format!("{} {n}", s.0),
        None => s.0.to_string(),
    }
}

fn fail(cmd: &str, e: CallError) -> ExitCode {
    eprintln!("mqgate sbs {cmd}: {e}");
    e.exit_code()
}

fn print(cmd: &str, line: &str, ok: bool) -> ExitCode {
    out::line_or_exit(&format!("sbs {cmd}"), line).unwrap_or(if ok {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    })
}

/// Runs `call` with the response queue: `resp_q` when given, else a
/// temporary queue attached for the call (pams_attach_q) and deleted after
/// it (pams_exit), so that the answer cannot be lost on a full, undefined or
/// wrong queue.
fn with_resp_q(
    cmd: &str,
    gw: &Gateway,
    resp_q: Option<QAddress>,
    call: impl FnOnce(QAddress) -> ExitCode,
) -> ExitCode {
    if let Some(q) = resp_q {
        return call(q);
    }
    let (id, q) = match attach_temporary(gw) {
        Ok(x) => x,
        Err(e) => return fail(cmd, e),
    };
    let code = call(q);
    if let Err(e) = exit(gw, &id) {
        eprintln!("mqgate sbs {cmd}: pams_exit of temporary queue {q}: {e}");
    }
    code
}

fn register(a: RegisterArgs) -> ExitCode {
    let gw = Gateway::new(
        &a.common.gateway,
        Duration::from_millis(a.common.wait + 30_000),
    );
    let Ok(mot) = Mot::new(i64::from(a.mot)) else {
        return ExitCode::from(2);
    };
    let mut req = RegisterReq::new(mot, a.queue);
    req.user_tag = i32::from_be_bytes(random::<4>()) & i32::MAX;
    req.req_ack = i32::from(a.ack);
    req.seq_gap_notify = i32::from(a.seq_gap);
    req.auto_dereg = i32::from(a.auto_dereg);
    req.rule_conjunct = if a.any { 2 } else { 1 };
    req.rules = a.rules.clone();
    let area = match req.encode_full_size(ORDER) {
        Ok(b) => b,
        Err(e) => {
            eprintln!("mqgate sbs register: {e}");
            return ExitCode::from(2);
        }
    };
    with_resp_q("register", &gw, a.common.resp_q, |resp_q| {
        register_to(&a, &gw, &area, resp_q)
    })
}

/// `sbs register` with the answer read from `resp_q`.
fn register_to(a: &RegisterArgs, gw: &Gateway, area: &[u8], resp_q: QAddress) -> ExitCode {
    match ask(
        gw,
        SbsType::RegisterReq,
        area,
        Route {
            server: a.common.server,
            resp_q,
        },
        a.common.wait,
        a.ack,
    ) {
        Err(e) => fail("register", e),
        Ok(None) if a.ack => {
            eprintln!(
                "mqgate sbs register: no SBS_REGISTER_RESP on {resp_q} within {} ms",
                a.common.wait
            );
            ExitCode::from(EXIT_NO_MESSAGE)
        }
        Ok(None) => print(
            "register",
            "sent; no SBS_REGISTER_RESP asked for (--ack) and no refusal came",
            true,
        ),
        Ok(Some((t, body, order))) => {
            if t != SbsType::RegisterResp.code() {
                eprintln!("mqgate sbs register: answer of type {t}, not SBS_REGISTER_RESP");
                return ExitCode::FAILURE;
            }
            match RegisterResp::decode(&body, order) {
                Ok(r) => print(
                    "register",
                    &format!(
                        "status {} reg_id {} number_reg {}",
                        status_text(r.status),
                        r.reg_id,
                        r.number_reg
                    ),
                    r.status == SbsStatus::SUCCESS,
                ),
                Err(e) => {
                    eprintln!("mqgate sbs register: {e}");
                    ExitCode::FAILURE
                }
            }
        }
    }
}

fn deregister(a: DeregisterArgs) -> ExitCode {
    let gw = Gateway::new(
        &a.common.gateway,
        Duration::from_millis(a.common.wait + 30_000),
    );
    let req = DeregisterReq {
        version: SBS_VERSION,
        user_tag: i32::from_be_bytes(random::<4>()) & i32::MAX,
        mot: i32::from(a.mot),
        distribution_q: a.queue,
        reg_id: a.reg_id,
        req_ack: 1,
    };
    let area = req.encode(ORDER);
    with_resp_q("deregister", &gw, a.common.resp_q, |resp_q| {
        deregister_to(&a, &gw, &area, resp_q)
    })
}

/// `sbs deregister` with the answer read from `resp_q`.
fn deregister_to(a: &DeregisterArgs, gw: &Gateway, area: &[u8], resp_q: QAddress) -> ExitCode {
    match ask(
        gw,
        SbsType::DeregisterReq,
        area,
        Route {
            server: a.common.server,
            resp_q,
        },
        a.common.wait,
        true,
    ) {
        Err(e) => fail("deregister", e),
        Ok(None) => {
            eprintln!(
                "mqgate sbs deregister: no SBS_DEREGISTER_RESP on {resp_q} within {} ms",
                a.common.wait
            );
            ExitCode::from(EXIT_NO_MESSAGE)
        }
        Ok(Some((_, body, order))) => match DeregisterResp::decode(&body, order) {
            Ok(r) => print(
                "deregister",
                &format!(
                    "status {} number_reg {}",
                    status_text(r.status),
                    r.number_reg
                ),
                r.status == SbsStatus::SUCCESS,
            ),
            Err(e) => {
                eprintln!("mqgate sbs deregister: {e}");
                ExitCode::FAILURE
            }
        },
    }
}

fn status(a: StatusArgs) -> ExitCode {
    let gw = Gateway::new(
        &a.common.gateway,
        Duration::from_millis(a.common.wait + 30_000),
    );
    with_resp_q("status", &gw, a.common.resp_q, |resp_q| {
        status_to(&a, &gw, resp_q)
    })
}

/// `sbs status` with the answer read from `resp_q`.
fn status_to(a: &StatusArgs, gw: &Gateway, resp_q: QAddress) -> ExitCode {
    let (start, end) = match a.mot {
        Some(m) => (i32::from(m), i32::from(m)),
        None => (i32::from(*MOT_RANGE.start()), i32::from(*MOT_RANGE.end())),
    };
    let req = StatusReq {
        version: SBS_VERSION,
        user_tag: i32::from_be_bytes(random::<4>()) & i32::MAX,
        start_mot: start,
        end_mot: end,
        reset: i32::from(a.reset),
    };
    let area = req.encode(ORDER);
    // Every block of the answer carries the request's correlation id.
    let corr = hex::encode_upper(random::<32>());
    let mut next = ask_with(
        gw,
        SbsType::StatusReq,
        &area,
        Route {
            server: a.common.server,
            resp_q,
        },
        a.common.wait,
        true,
        &corr,
    );
    let mut lines = Vec::new();
    loop {
        let (body, order) = match next {
            Err(e) => return fail("status", e),
            Ok(None) => {
                eprintln!(
                    "mqgate sbs status: no SBS_STATUS_RESP on {resp_q} within {} ms",
                    a.common.wait
                );
                return ExitCode::from(EXIT_NO_MESSAGE);
            }
            Ok(Some((_, body, order))) => (body, order),
        };
        let r = match StatusResp::decode(&body, order) {
            Ok(r) => r,
            Err(e) => {
                eprintln!("mqgate sbs status: {e}");
                return ExitCode::FAILURE;
            }
        };
        if r.status != SbsStatus::SUCCESS {
            eprintln!("mqgate sbs status: status {}", status_text(r.status));
            return ExitCode::FAILURE;
        }
        for i in 0..usize::try_from(r.num_rec).unwrap_or(0) {
            let m: StatusRespMot = match r.mot_record(i, order) {
                Ok(m) => m,
                Err(e) => {
                    eprintln!("mqgate sbs status: record {i}: {e}");
                    return ExitCode::FAILURE;
                }
            };
            lines.push(format!(
                "mot {} num_reg {} complete_rcvd {} complete_bytes {} seq_gaps {}",
                m.mot, m.num_reg, m.complete_rcvd, m.complete_bytes, m.seq_gaps
            ));
        }
        if r.last_block != 0 || body.len() <= STATUS_RESP_HEAD_SIZE {
            break;
        }
        next = answer(gw, resp_q, a.common.wait, &corr);
    }
    if lines.is_empty() {
        lines.push("no MOT with registrations or broadcasts".into());
    }
    print("status", &lines.join("\n"), true)
}
