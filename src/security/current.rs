//! A value replaced whole while readers go on with the one they took: the
//! rustls configuration of a TLS endpoint (src/security/tls/endpoint.rs),
//! the tokens and grants of the HTTP API (src/security/credentials.rs). A
//! reader takes an `Arc` of the value in force and keeps it as long as it
//! needs; a replacement is one store, so no reader ever sees half of one
//! value and half of another (docs/operations.md "Reloading the
//! configuration").

use std::sync::{Arc, RwLock};

/// The value in force, replaced by [`Current::set`].
#[derive(Debug)]
pub struct Current<T>(RwLock<Arc<T>>);

impl<T> Current<T> {
    /// `value` in force.
    pub fn new(value: T) -> Self {
        Current(RwLock::new(Arc::new(value)))
    }

    /// The value now (a poisoned lock still holds a whole one: a
    /// replacement is a single store).
    pub fn get(&self) -> Arc<T> {
        match self.0.read() {
            Ok(c) => Arc::clone(&c),
            Err(p) => Arc::clone(&p.into_inner()),
        }
    }

    /// Puts `value` in force instead of the one there; readers holding the
    /// old one keep it.
    pub fn set(&self, value: T) {
        let value = Arc::new(value);
        match self.0.write() {
            Ok(mut c) => *c = value,
            Err(p) => *p.into_inner() = value,
        }
    }
}
