//! The tokens and the grants of the HTTP API as one value (docs/security.md
//! "Tokens", "Authorities"), which a configuration reload replaces in one
//! step ([`super::current::Current`]). A request is authenticated against
//! the value in force when it arrives, and the principal it gets carries
//! that value's grants ([`Principal::granted`]), so every authority check
//! of the request sees the grants that went with the tokens that let it in:
//! never new tokens with old grants, nor old tokens with new grants
//! (docs/operations.md "Reloading the configuration").

use super::current::Current;
use super::tokens::Tokens;
use super::{Authorities, Principal, SecurityConfig};
use std::sync::Arc;

/// The tokens and grants in force together.
#[derive(Debug, Default)]
pub struct Credentials {
    /// The accepted bearer tokens.
    pub tokens: Tokens,
    /// The grants the principals of those tokens hold.
    pub authorities: Arc<Authorities>,
}

/// The credentials in force, replaced whole by a reload.
pub type CurrentCredentials = Current<Credentials>;

impl Credentials {
    /// The tokens (the inline ones, then those of `tokens_file`) and the
    /// grants of `c`. Errors: as [`Tokens::from_config`] and
    /// [`Authorities::from_config`].
    pub fn from_config(c: &SecurityConfig) -> Result<Credentials, String> {
        Ok(Credentials {
            tokens: Tokens::from_config(c)?,
            authorities: Arc::new(Authorities::from_config(c)?),
        })
    }

    /// The principal `token` authenticates, holding these grants; `None`
    /// for a token that is not among these ([`Tokens::authenticate`]).
    pub fn authenticate(&self, token: &str) -> Option<Principal> {
        self.tokens
            .authenticate(token)
            .map(|p| p.with_grants(Arc::clone(&self.authorities)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::security::{Authority, ObjectType};

    fn credentials(yaml: &str) -> Credentials {
        let c: SecurityConfig = serde_yaml::from_str(yaml).unwrap();
        Credentials::from_config(&c).unwrap()
    }

    /// A request let in by the tokens in force before a reload is checked
    /// against the grants that went with them, after the reload too; one
    /// that arrives after it gets the new tokens and the new grants. The
    /// grants: app +put on Q.A before, +put on Q.B after (docs/security.md
    /// "Authorities": no matching profile is refused).
    #[test]
    fn a_request_sees_the_grants_of_the_tokens_that_let_it_in() {
        let sha = crate::security::tokens::digest_hex;
        let before = format!(
            "tokens: [{{ principal: app, sha256: \"{}\" }}]\nauthorities: [{{ principal: app, profile: Q.A, authorities: [put] }}]\n",
            sha("old-token")
        );
        let after = format!(
            "tokens: [{{ principal: app, sha256: \"{}\" }}]\nauthorities: [{{ principal: app, profile: Q.B, authorities: [put] }}]\n",
            sha("new-token")
        );
        let cell = CurrentCredentials::new(credentials(&before));
        let early = cell.get().authenticate("old-token").unwrap();
        cell.set(credentials(&after));
        let check = |p: &Principal, q: &str| {
            p.granted()
                .unwrap()
                .check(p, ObjectType::Queue, q, Authority::Put)
                .is_ok()
        };
        assert!(check(&early, "Q.A"));
        assert!(!check(&early, "Q.B"));
        assert!(cell.get().authenticate("old-token").is_none());
        let late = cell.get().authenticate("new-token").unwrap();
        assert!(check(&late, "Q.B"));
        assert!(!check(&late, "Q.A"));
    }
}
