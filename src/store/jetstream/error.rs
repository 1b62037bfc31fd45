//! Why a JetStream store could not be opened: each start-up check of
//! docs/cluster.md "Start-up checks" has its own variant, and the message
//! names the server, stream or setting that is wrong.

/// A JetStream store that cannot be opened.
#[derive(Debug, thiserror::Error)]
pub enum OpenError {
    /// No server of `servers` answered (connection refused, DNS, timeout).
    #[error("storage: cannot reach any NATS server of {servers}: {detail}")]
    Unreachable {
        /// The configured servers, as given.
        servers: String,
        /// The client's error.
        detail: String,
    },
    /// The server refused the credentials (`-ERR 'Authorization
    /// Violation'`), or the credentials file cannot be used.
    #[error("storage: the NATS server refused the credentials: {detail}")]
    Credentials {
        /// The server's or client's error.
        detail: String,
    },
    /// TLS could not be set up (certificate files, handshake).
    #[error("storage: TLS to the NATS server failed: {detail}")]
    Tls {
        /// The error.
        detail: String,
    },
    /// The server is older than 2.12, which has no atomic batch publish.
    #[error(
        "storage: nats-server {version} is too old: the JetStream store needs 2.12 or later (atomic batch publish)"
    )]
    ServerTooOld {
        /// The version the server announced.
        version: String,
    },
    /// JetStream is not enabled for the account (or on the server).
    #[error("storage: the NATS account has no JetStream: {detail}")]
    NoJetStream {
        /// What the server answered.
        detail: String,
    },
    /// The server's sync policy lets an acknowledged write be lost on a
    /// power failure, or cannot be seen, and `require_sync_always` is set.
    #[error("storage: {detail}")]
    SyncPolicy {
        /// Which server and what it reports.
        detail: String,
    },
    /// The stream exists with settings the store cannot work with.
    #[error("storage: stream {stream} exists with incompatible settings: {}", .problems.join("; "))]
    Incompatible {
        /// The stream's name.
        stream: String,
        /// Each wrong setting, with its value and the one needed.
        problems: Vec<String>,
    },
    /// Another gateway holds the stream.
    #[error(
        "storage: stream {stream} is in use by another gateway ({holder}); one gateway per stream_prefix"
    )]
    Locked {
        /// The stream's name.
        stream: String,
        /// Who holds it (host, process id, start time).
        holder: String,
    },
    /// A JetStream request failed otherwise.
    #[error("storage: {op}: {detail}")]
    Request {
        /// What was being done.
        op: String,
        /// The error.
        detail: String,
    },
}
