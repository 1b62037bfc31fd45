//! The sessions of every client identifier (MQTT 5.0 3.1.4 "CONNECT
//! Actions", 4.1; 3.1.1 3.1.4): at most one connection per client
//! identifier — a new one takes the session over and the old connection is
//! closed (5.0 3.1.4 [MQTT-3.1.4-3]: 0x8E Session taken over) — and the
//! session kept after a connection ends, until its expiry (5.0 3.1.2.11.2;
//! 3.1.1 Clean Session 0: `mqtt.max_session_expiry_s`). Sessions live in
//! memory (docs/mqtt.md "Sessions").

use super::session::Session;
use std::collections::HashMap;
use std::sync::Mutex;
use std::time::{Duration, Instant};
use tokio::sync::watch;
use tokio_util::sync::CancellationToken;

/// The sessions of one listener.
#[derive(Default)]
pub struct Sessions {
    map: Mutex<HashMap<String, Slot>>,
}

enum Slot {
    /// A connection holds the session.
    Live {
        conn: u64,
        /// Cancelled to close that connection (taken over).
        takeover: CancellationToken,
        /// Changes (or closes) once that connection released the session.
        released: watch::Receiver<()>,
    },
    /// No connection; kept until `expires` (`None`: never).
    Kept {
        session: Session,
        expires: Option<Instant>,
        /// A delayed Will Message, cancelled when the client comes back
        /// (5.0 3.1.3.2.2).
        will: Option<CancellationToken>,
    },
}

/// A connection's hold on its session (from [`Sessions::claim`]).
pub struct Claim {
    /// The session kept from an earlier connection, if any (Session Present).
    pub session: Option<Session>,
    /// Cancelled when another connection takes the session over.
    pub takeover: CancellationToken,
    /// Dropped (after [`Sessions::release`]) to let a connection taking
    /// over go on.
    pub released: watch::Sender<()>,
}

/// How long a connection taking a session over waits for the old one to
/// give it back (it backs out its leases first).
const TAKEOVER_WAIT: Duration = Duration::from_secs(10);

impl Sessions {
    /// Claims the session of `client_id` for connection `conn`: a
    /// connection holding it is told to close and awaited; a kept session
    /// is returned unless `clean_start` (then it is discarded, 5.0 3.1.2.4)
    /// or it expired.
    pub async fn claim(&self, client_id: &str, conn: u64, clean_start: bool) -> Claim {
        let deadline = tokio::time::Instant::now() + TAKEOVER_WAIT;
        loop {
            let mut wait = {
                let mut map = self.lock();
                match map.get(client_id) {
                    Some(Slot::Live {
                        takeover, released, ..
                    }) if tokio::time::Instant::now() < deadline => {
                        takeover.cancel();
                        released.clone()
                    }
                    _ => {
                        let kept = match map.remove(client_id) {
                            Some(Slot::Kept {
                                session,
                                expires,
                                will,
                            }) => {
                                if let Some(w) = will {
                                    w.cancel();
                                }
                                let live = expires.is_none_or(|e| Instant::now() < e);
                                (live && !clean_start).then_some(session)
                            }
                            _ => None,
                        };
                        let (tx, rx) = watch::channel(());
                        let takeover = CancellationToken::new();
                        map.insert(
                            client_id.to_string(),
                            Slot::Live {
                                conn,
                                takeover: takeover.clone(),
                                released: rx,
                            },
                        );
                        return Claim {
                            session: kept,
                            takeover,
                            released: tx,
                        };
                    }
                }
            };
            // Ends when the holder releases (its sender is dropped).
            let _ = tokio::time::timeout_at(deadline, wait.changed()).await;
        }
    }

    /// Ends connection `conn`'s hold on `client_id`: keeps `session` for
    /// `expiry` (`None`: forever) unless it is zero or `session` is `None`;
    /// `will` is the cancel token of a delayed Will Message. Nothing
    /// happens when another connection has taken the session over.
    pub fn release(
        &self,
        client_id: &str,
        conn: u64,
        session: Option<Session>,
        expiry: Option<Duration>,
        will: Option<CancellationToken>,
    ) {
        let mut map = self.lock();
        if !matches!(map.get(client_id), Some(Slot::Live { conn: c, .. }) if *c == conn) {
            return;
        }
        match session {
            Some(session) if expiry != Some(Duration::ZERO) => {
                map.insert(
                    client_id.to_string(),
                    Slot::Kept {
                        session,
                        expires: expiry.map(|e| Instant::now() + e),
                        will,
                    },
                );
            }
            _ => {
                map.remove(client_id);
            }
        }
    }

    /// Sessions held by a connection or kept.
    #[cfg(test)]
    pub fn len(&self) -> usize {
        self.lock().len()
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<String, Slot>> {
        self.map.lock().unwrap_or_else(|p| p.into_inner())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn a_session_is_kept_taken_over_and_cleaned() {
        let s = Sessions::default();
        let c1 = s.claim("DEV1", 1, false).await;
        assert!(c1.session.is_none());
        let mut kept = Session::default();
        kept.resend.insert(("INBOX".into(), (0, 7)), 3);
        s.release("DEV1", 1, Some(kept), None, None);
        drop(c1.released);
        let c2 = s.claim("DEV1", 2, false).await;
        assert_eq!(c2.session.unwrap().resend.len(), 1, "Session Present");
        // A third connection takes it over: the second is told to close and
        // the third goes on once it released.
        let takeover = c2.takeover.clone();
        let released = c2.released;
        let s = std::sync::Arc::new(s);
        let s2 = std::sync::Arc::clone(&s);
        let third = tokio::spawn(async move { s2.claim("DEV1", 3, false).await.session.is_some() });
        takeover.cancelled().await;
        s.release("DEV1", 2, Some(Session::default()), None, None);
        drop(released);
        assert!(third.await.unwrap());
        // Clean Start discards it; expiry 0 keeps nothing.
        s.release("DEV1", 3, Some(Session::default()), None, None);
        assert!(s.claim("DEV1", 4, true).await.session.is_none());
        s.release(
            "DEV1",
            4,
            Some(Session::default()),
            Some(Duration::ZERO),
            None,
        );
        assert_eq!(s.len(), 0);
    }
}
