//! `mqgate rv ...`: Rendezvous subject names for administrators and
//! scripts (`check-subject`, `match`: the codec's rules, no gateway;
//! docs/rendezvous.md "Subject names", "Command line"), and the subject bus
//! of a running gateway (`publish`, `listen`, `request`: src/cli/rv_client.rs).

use clap::{Args, Subcommand, ValueEnum};
use mqgate_codecs::rv::{Mode, Subject, SubjectError, Validation};
use std::io::Write;
use std::process::ExitCode;

/// Exit status of a subject or pattern that is not valid (and of usage
/// errors, as clap gives them).
const EXIT_INVALID: u8 = 2;
/// Exit status of `rv match` when the pattern does not match.
const EXIT_NO_MATCH: u8 = 1;

/// `mqgate rv ...`.
#[derive(Subcommand, Debug)]
pub enum RvCommand {
    /// Check a subject name for listening, sending or certified sending; exit 2 with the reason when invalid.
    CheckSubject(CheckArgs),
    /// Tell whether a listener on PATTERN receives messages on SUBJECT; exit 0 match, 1 no match.
    Match(MatchArgs),
    /// Publish a message on a subject of a running gateway.
    Publish(super::rv_client::PublishArgs),
    /// Listen to subjects of a running gateway, one line per message; exit 3 when --timeout passes first.
    Listen(super::rv_client::ListenArgs),
    /// Send a request and print the first reply; exit 3 when none came within --timeout.
    Request(super::rv_client::RequestArgs),
}

/// The mode of `check-subject`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum ModeArg {
    /// A listener's subject: wildcards and reserved prefixes allowed, at most 196 bytes.
    Listen,
    /// A send on an ordinary transport: no wildcards (unless --allow-wildcards), no
    /// reserved first element but _LOCAL and _INBOX, at most 196 minus the number of
    /// elements, bytes.
    Send,
    /// A send on a certified (CM) transport or to a distributed queue: as send, and
    /// never wildcards.
    Cm,
}

impl From<ModeArg> for Mode {
    fn from(m: ModeArg) -> Mode {
        match m {
            ModeArg::Listen => Mode::Listen,
            ModeArg::Send => Mode::Send,
            ModeArg::Cm => Mode::SendCertified,
        }
    }
}

/// Options of `mqgate rv check-subject`.
#[derive(Args, Debug)]
#[command(
    after_help = "Exit status: 0 valid (a summary on stdout); 2 invalid, with the rule and the element (counted from 1) on stderr, or a usage error."
)]
pub struct CheckArgs {
    /// The subject name, e.g. NEWS.LOCAL.POLITICS or RUN.> (after `--` when it begins with `-`).
    pub subject: String,
    /// What the subject is for.
    #[arg(long, value_enum, default_value_t = ModeArg::Listen)]
    pub mode: ModeArg,
    /// With --mode send: accept wildcard elements (legal in Rendezvous but
    /// discouraged; refused by default).
    #[arg(long)]
    pub allow_wildcards: bool,
}

/// Options of `mqgate rv match`.
#[derive(Args, Debug)]
#[command(
    after_help = "Exit status: 0 the pattern matches; 1 it does not; 2 the pattern (checked as a listen subject) or the subject (a message's subject: no wildcards) is invalid, with the reason on stderr, or a usage error."
)]
pub struct MatchArgs {
    /// The listener's subject, with * (one element) and > (one or more trailing elements).
    pub pattern: String,
    /// The subject of a message.
    pub subject: String,
}

/// Runs one `rv` subcommand.
pub fn run(cmd: RvCommand) -> ExitCode {
    match cmd {
        RvCommand::CheckSubject(a) => check_subject(a),
        RvCommand::Match(a) => match_subject(a),
        RvCommand::Publish(a) => super::rv_client::publish(a),
        RvCommand::Listen(a) => super::rv_client::listen(a),
        RvCommand::Request(a) => super::rv_client::request(a),
    }
}

/// `invalid <what> "<text>": <rule> (<reference>)` on stderr; exit 2.
fn invalid(cmd: &str, what: &str, text: &str, e: &SubjectError) -> ExitCode {
    eprintln!(
        "mqgate rv {cmd}: invalid {what} {text:?}: {e} (TIBRV_INVALID_SUBJECT {}; see {})",
        e.status(),
        reference(e)
    );
    ExitCode::from(EXIT_INVALID)
}

/// Where the rule is written: a TIBCO Rendezvous Concepts page or mqgate's docs.
fn reference(e: &SubjectError) -> String {
    match e.reference() {
        doc @ "docs/rendezvous.md" => doc.to_string(),
        page => format!("TIBCO Rendezvous Concepts, \"{page}\""),
    }
}

/// Writes `line` to stdout. The exit status carries the answer, so a reader
/// that went away changes nothing and another write error is only reported.
fn print(cmd: &str, line: &str) {
    let mut stdout = std::io::stdout().lock();
    if let Err(e) = writeln!(stdout, "{line}").and_then(|()| stdout.flush())
        && e.kind() != std::io::ErrorKind::BrokenPipe
    {
        eprintln!("mqgate rv {cmd}: writing stdout: {e}");
    }
}

fn check_subject(a: CheckArgs) -> ExitCode {
    let mode = Mode::from(a.mode);
    let validation = Validation::new(mode).allow_wildcard_send(a.allow_wildcards);
    match Subject::parse(&a.subject, validation) {
        Err(e) => invalid("check-subject", "subject", &a.subject, &e),
        Ok(s) => {
            let mut line = format!(
                "valid {} subject: {} element{}",
                mode.name(),
                s.element_count(),
                if s.element_count() == 1 { "" } else { "s" }
            );
            if s.has_wildcards() {
                line.push_str(", wildcards");
            }
            if s.class().is_reserved() {
                line.push_str(&format!(", {} ({})", s.class(), s.class().meaning()));
            }
            print("check-subject", &line);
            ExitCode::SUCCESS
        }
    }
}

fn match_subject(a: MatchArgs) -> ExitCode {
    let pattern = match Subject::parse(&a.pattern, Mode::Listen) {
        Ok(p) => p,
        Err(e) => return invalid("match", "pattern", &a.pattern, &e),
    };
    let subject = match Subject::parse_delivered(&a.subject) {
        Ok(s) => s,
        Err(e) => return invalid("match", "subject", &a.subject, &e),
    };
    if pattern.matches(&subject) {
        print("match", "match");
        ExitCode::SUCCESS
    } else {
        print("match", "no match");
        ExitCode::from(EXIT_NO_MATCH)
    }
}
