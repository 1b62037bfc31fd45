//! `mqgate run`: the gateway service (queue manager + HTTP API).

use crate::channel::StatusBoard;
use crate::channel::receiver::Receivers;
use crate::channel::sender_channel::SenderChannel;
use crate::config::{ChannelDef, Config};
use crate::http::{AppState, router};
use crate::qmgr::QueueManager;
use crate::store::redb::RedbStore;
use clap::{Args, ValueEnum};
use std::net::SocketAddr;
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;

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
    /// Tuxedo DMCONFIG file; overrides `dmconfig:` of the YAML (docs/tuxedo.md).
    #[arg(long)]
    pub dmconfig: Option<PathBuf>,
    /// Log format.
    #[arg(long, value_enum, default_value_t = LogFormat::Human)]
    pub log_format: LogFormat,
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

/// Runs the gateway until SIGINT or SIGTERM; exit status 0 after a clean stop.
pub fn run(args: RunArgs) -> ExitCode {
    let Some(mut config) = load_config(args.config.as_ref()) else {
        return ExitCode::from(2);
    };
    if let Some(d) = args.data_dir {
        config.storage.data_dir = d;
    }
    if let Some(a) = args.http {
        config.http.listen = a;
    }
    if let Some(a) = args.listen {
        config.listener.listen = a;
    }
    if let Some(d) = args.dmconfig {
        config.dmconfig = Some(d);
    }
    let tedg = match crate::tedg::load_from_config(&mut config) {
        Ok(t) => t,
        Err(errors) => {
            for e in errors {
                eprintln!("{e}");
            }
            return ExitCode::from(2);
        }
    };
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
    match runtime.block_on(serve(config, tedg)) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            tracing::error!(error = %e, "mqgate stopped on an error");
            ExitCode::FAILURE
        }
    }
}

async fn serve(config: Config, tedg: Option<crate::tedg::Loaded>) -> Result<(), String> {
    let store = RedbStore::open(&config.storage.data_dir).map_err(|e| e.to_string())?;
    let qm = Arc::new(QueueManager::open(&config, Arc::new(store)).map_err(|e| e.to_string())?);
    let listener = tokio::net::TcpListener::bind(config.http.listen)
        .await
        .map_err(|e| format!("cannot listen on {}: {e}", config.http.listen))?;
    let channel_listener = tokio::net::TcpListener::bind(config.listener.listen)
        .await
        .map_err(|e| {
            format!(
                "cannot listen for channels on {}: {e}",
                config.listener.listen
            )
        })?;
    let board = Arc::new(StatusBoard::default());
    let (stop_tx, stop_rx) = tokio::sync::watch::channel(false);
    let receivers: Vec<_> = config
        .channels
        .iter()
        .filter_map(|c| match c {
            ChannelDef::Receiver(r) => Some(r.clone()),
            ChannelDef::Sender(_) => None,
        })
        .collect();
    let receivers = Arc::new(
        Receivers::new(Arc::clone(&qm), Arc::clone(&board), &receivers).with_exits(&config.exits),
    );
    tokio::spawn(receivers.serve(channel_listener, stop_rx.clone()));
    for c in &config.channels {
        if let ChannelDef::Sender(def) = c {
            let task = SenderChannel::new(Arc::clone(&qm), Arc::clone(&board), def.clone())
                .with_exits(&config.exits);
            tokio::spawn(task.run(stop_rx.clone()));
        }
    }
    tracing::info!(
        queue_manager = %qm.name(),
        http = %config.http.listen,
        listener = %config.listener.listen,
        data_dir = %config.storage.data_dir.display(),
        "mqgate running"
    );
    let exits = Arc::new(crate::mqi::QueueExits::new(&config.exits, qm.name()));
    let mqi = crate::mqi::Mqi::new(Arc::clone(&qm), Arc::clone(&exits));
    let tedg_routes = tedg.map(|loaded| {
        let t = crate::tedg::Tedg::new(
            loaded,
            mqi.clone(),
            Arc::new(crate::tedg::clock::SystemClock),
            config.http.lease_ms,
        );
        crate::tedg::http::routes(crate::tedg::http::TedgState {
            tedg: Arc::new(t),
            max_wait_ms: config.http.max_wait_ms,
        })
    });
    let state = AppState::new(mqi, Arc::new(config), board);
    let rpc = crate::rpc::RpcService::start(&state.mqi, &state.config.rpc)?;
    let stopping = Arc::clone(&qm);
    let mut app = router(state).merge(crate::rpc::http::router(rpc));
    if let Some(r) = tedg_routes {
        app = app.merge(r);
    }
    // After the merges, so RPC and Tuxedo routes answer JSON errors too.
    let app = crate::http::with_json_errors(app);
    axum::serve(listener, app)
        .with_graceful_shutdown(async move {
            stop_signal().await;
            tracing::info!("stop requested; finishing requests in flight");
            // Waiting getters return 2161 so the server can drain promptly.
            stopping.quiesce();
            let _ = stop_tx.send(true);
        })
        .await
        .map_err(|e| format!("HTTP server: {e}"))?;
    // MQXR_TERM for every queue exit started, once no request can run one.
    tokio::task::spawn_blocking(move || exits.terminate())
        .await
        .map_err(|e| format!("shutdown: {e}"))?;
    let qm2 = Arc::clone(&qm);
    tokio::task::spawn_blocking(move || qm2.shutdown())
        .await
        .map_err(|e| format!("shutdown: {e}"))?;
    Ok(())
}

/// Resolves on SIGINT or SIGTERM.
async fn stop_signal() {
    let ctrl_c = tokio::signal::ctrl_c();
    #[cfg(unix)]
    {
        use tokio::signal::unix::{SignalKind, signal};
        match signal(SignalKind::terminate()) {
            Ok(mut term) => {
                tokio::select! {
                    _ = ctrl_c => {}
                    _ = term.recv() => {}
                }
            }
            Err(_) => {
                let _ = ctrl_c.await;
            }
        }
    }
    #[cfg(not(unix))]
    {
        let _ = ctrl_c.await;
    }
}
