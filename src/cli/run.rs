//! `mqgate run`: the gateway service (queue manager + HTTP API), started
//! with [`Gateway::start`], stopped on SIGINT or SIGTERM, its configuration
//! file reloaded on SIGHUP (docs/operations.md "Reloading the
//! configuration").

use crate::config::{Config, ConfigErrors, Listen};
use crate::gateway::Gateway;
use clap::{Args, ValueEnum};
use std::net::SocketAddr;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

/// Log output format.
#[derive(Clone, Copy, Debug, Default, ValueEnum)]
pub enum LogFormat {
    /// Human-readable lines on stderr.
    #[default]
    Human,
    /// One JSON object per line on stderr.
    Json,
}

/// Options of `mqgate run`.
#[derive(Args, Debug)]
pub struct RunArgs {
    /// YAML configuration file (docs/config.md); without it the embedded default.
    #[arg(long)]
    pub config: Option<PathBuf>,
    /// Overrides storage.data_dir.
    #[arg(long)]
    pub data_dir: Option<PathBuf>,
    /// Overrides http.listen (ADDR:PORT).
    #[arg(long)]
    pub http: Option<SocketAddr>,
    /// Overrides listener.listen (ADDR:PORT).
    #[arg(long)]
    pub listen: Option<SocketAddr>,
    /// Overrides mqtt.listen, the MQTT listener for devices (ADDR:PORT; docs/mqtt.md).
    #[arg(long)]
    pub mqtt: Option<SocketAddr>,
    /// Overrides svrconn.listen, the listener for IBM MQ client applications
    /// (ADDR:PORT; docs/mq-client-protocol.md); only with a `svrconn:` section.
    #[arg(long)]
    pub svrconn: Option<SocketAddr>,
    /// Tuxedo DMCONFIG file; overrides `dmconfig:` of the YAML (docs/tuxedo.md).
    #[arg(long)]
    pub dmconfig: Option<PathBuf>,
    /// Log format.
    #[arg(long, value_enum, default_value_t = LogFormat::Human)]
    pub log_format: LogFormat,
    /// On SIGINT/SIGTERM: how long channel batches and requests in flight
    /// may take to finish, in ms, before they are ended (docs/config.md
    /// "Stopping"); 0 to 2147483647.
    #[arg(long, default_value_t = 5000, allow_negative_numbers = true, value_parser = clap::value_parser!(u64).range(0..=super::MAX_MS))]
    pub drain_ms: u64,
}

/// Installs the tracing subscriber: `RUST_LOG` if set, else `info`.
pub fn init_logging(format: LogFormat, default_level: &str) {
    let filter = tracing_subscriber::EnvFilter::try_from_default_env()
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new(default_level));
    let builder = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_ansi(std::io::IsTerminal::is_terminal(&std::io::stderr()))
        .with_writer(std::io::stderr);
    let _ = match format {
        LogFormat::Human => builder.try_init(),
        LogFormat::Json => builder.json().try_init(),
    };
}

/// Loads the configuration named by `path` (or the default) and reports errors
/// on stderr with line and column.
pub fn load_config(path: Option<&PathBuf>) -> Option<Config> {
    match path {
        None => Some(Config::default()),
        Some(p) => match Config::load(p) {
            Ok(c) => Some(c),
            Err(e) => {
                eprintln!("{e}");
                None
            }
        },
    }
}

/// The options of `mqgate run` that override settings of the file: applied
/// at the start and again to every file a SIGHUP reloads.
#[derive(Clone, Debug)]
struct Overrides {
    data_dir: Option<PathBuf>,
    http: Option<SocketAddr>,
    listen: Option<SocketAddr>,
    mqtt: Option<SocketAddr>,
    svrconn: Option<SocketAddr>,
    dmconfig: Option<PathBuf>,
}

impl Overrides {
    /// Applies the options to `config`; an `svrconn` option without an
    /// `svrconn:` section is left out.
    fn apply(&self, config: &mut Config) {
        if let Some(d) = &self.data_dir {
            config.storage.data_dir = d.clone();
        }
        if let Some(a) = self.http {
            config.set_listen_from_flag(Listen::Http, a);
        }
        if let Some(a) = self.listen {
            config.set_listen_from_flag(Listen::Channel, a);
        }
        if let Some(a) = self.mqtt {
            config.set_listen_from_flag(Listen::Mqtt, a);
        }
        if let Some(a) = self.svrconn
            && config.svrconn.is_some()
        {
            config.set_listen_from_flag(Listen::Svrconn, a);
        }
        if let Some(d) = &self.dmconfig {
            config.dmconfig = Some(d.clone());
        }
    }
}

/// Runs the gateway until SIGINT or SIGTERM; exit status 0 after a clean
/// stop, 2 for a configuration error (listener clash included), 1 otherwise.
pub fn run(args: RunArgs) -> ExitCode {
    let Some(mut config) = load_config(args.config.as_ref()) else {
        return ExitCode::from(2);
    };
    if args.svrconn.is_some() && config.svrconn.is_none() {
        eprintln!("--svrconn: the configuration has no svrconn: section (docs/config.md)");
        return ExitCode::from(2);
    }
    let overrides = Overrides {
        data_dir: args.data_dir.clone(),
        http: args.http,
        listen: args.listen,
        mqtt: args.mqtt,
        svrconn: args.svrconn,
        dmconfig: args.dmconfig.clone(),
    };
    overrides.apply(&mut config);
    // The TLS files as check-config reports them, each error at its
    // setting's line and column (the start itself names only the first).
    if let Some(file) = &args.config {
        let tls = config.tls_file_problems();
        if !tls.is_empty() {
            eprintln!("{}", ConfigErrors::placed(file, tls));
            return ExitCode::from(2);
        }
    }
    let clashes = config.listener_clashes();
    if !clashes.is_empty() {
        let file = args
            .config
            .as_ref()
            .map_or_else(|| "mqgate run".to_string(), |p| p.display().to_string());
        eprintln!(
            "{}",
            ConfigErrors {
                file,
                errors: clashes
            }
        );
        return ExitCode::from(2);
    }
    init_logging(args.log_format, "info");
    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
    {
        Ok(r) => r,
        Err(e) => {
            tracing::error!(error = %e, "cannot start the runtime");
            return ExitCode::FAILURE;
        }
    };
    let reload = args.config.map(|file| (file, overrides));
    runtime.block_on(serve(config, Duration::from_millis(args.drain_ms), reload))
}

/// Starts the gateway, waits for SIGINT or SIGTERM (or a part of the gateway
/// failing), then stops it with the drain bound `drain`. Each SIGHUP
/// reloads the configuration file of `reload` (with its overrides); without
/// a file (the embedded default) there is nothing to reload and SIGHUP is
/// logged and ignored.
async fn serve(config: Config, drain: Duration, reload: Option<(PathBuf, Overrides)>) -> ExitCode {
    // Installed before the gateway starts, so a signal during the start is
    // a stop too.
    let mut signals = StopSignals::install();
    let mut hangups = Hangups::install();
    let mut handle = match Gateway::start(config).await {
        Ok(h) => h,
        Err(e) if e.is_config() => {
            eprintln!("{e}");
            return ExitCode::from(2);
        }
        Err(e) => {
            tracing::error!(error = %e, "mqgate stopped on an error");
            return ExitCode::FAILURE;
        }
    };
    if let Some((file, overrides)) = &reload {
        let overrides = overrides.clone();
        handle.set_reload_file(file.clone(), move |c| overrides.apply(c));
    }
    let fault = loop {
        tokio::select! {
            () = signals.recv() => break None,
            f = handle.wait() => break Some(f),
            () = hangups.recv() => {}
        }
        match &reload {
            // Errors and the summary are logged by the reload.
            Some((file, overrides)) => {
                let _ = handle.reload(file, |c| overrides.apply(c));
            }
            None => tracing::warn!(
                "SIGHUP: mqgate runs the embedded default configuration (no --config); nothing to reload"
            ),
        }
    };
    handle.stop(drain).await;
    match fault {
        None => ExitCode::SUCCESS,
        Some(f) => {
            tracing::error!(error = %f, "mqgate stopped on an error");
            ExitCode::FAILURE
        }
    }
}

/// SIGHUP, listened for from [`Hangups::install`] on (it no longer ends
/// the process then): each one reloads the configuration and, with it,
/// the TLS certificates.
struct Hangups {
    #[cfg(unix)]
    unix: Option<tokio::signal::unix::Signal>,
}

impl Hangups {
    fn install() -> Self {
        #[cfg(unix)]
        {
            use tokio::signal::unix::{SignalKind, signal};
            Hangups {
                unix: signal(SignalKind::hangup()).ok(),
            }
        }
        #[cfg(not(unix))]
        {
            Hangups {}
        }
    }

    /// Resolves on the next SIGHUP; never without a handler.
    async fn recv(&mut self) {
        #[cfg(unix)]
        if let Some(h) = self.unix.as_mut()
            && h.recv().await.is_some()
        {
            return;
        }
        std::future::pending::<()>().await
    }
}

/// SIGINT and SIGTERM, listened for from [`StopSignals::install`] on.
pub(super) struct StopSignals {
    #[cfg(unix)]
    unix: Option<(tokio::signal::unix::Signal, tokio::signal::unix::Signal)>,
}

impl StopSignals {
    pub(super) fn install() -> Self {
        #[cfg(unix)]
        {
            use tokio::signal::unix::{SignalKind, signal};
            let unix = match (
                signal(SignalKind::interrupt()),
                signal(SignalKind::terminate()),
            ) {
                (Ok(int), Ok(term)) => Some((int, term)),
                _ => None,
            };
            StopSignals { unix }
        }
        #[cfg(not(unix))]
        {
            StopSignals {}
        }
    }

    /// Resolves on the next SIGINT or SIGTERM.
    pub(super) async fn recv(&mut self) {
        #[cfg(unix)]
        if let Some((int, term)) = self.unix.as_mut() {
            tokio::select! {
                _ = int.recv() => {}
                _ = term.recv() => {}
            }
            return;
        }
        let _ = tokio::signal::ctrl_c().await;
    }
}
