//! Builds exit chains from the configuration: built-in exits by name, C exits
//! by `library(function)`.

use crate::api::{Exit, ExitPoint};
use crate::builtin::convert::{self, Convert};
use crate::builtin::destination_rewrite::{self, DestinationRewrite};
use crate::builtin::rfh_properties::{self, RfhProperties};
use crate::chain::{ChainEntry, ExitChain, StartError};
use crate::config::{ExitDef, ExitRef, ExitsConfig, MAX_BUFFER_HEADROOM};
use crate::external::{CExit, LoadError};
use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::Duration;

/// Makes a built-in exit from its exit data at a point; `Err` explains why
/// the exit data or the point does not fit.
pub type BuiltinFactory =
    Arc<dyn Fn(ExitPoint, &str) -> Result<Box<dyn Exit>, String> + Send + Sync>;

/// Why an exit could not be put in a chain.
#[derive(Debug, thiserror::Error)]
pub enum BuildError {
    #[error("exit {exit:?} at {point}: no built-in exit named {name:?} (known: {known})")]
    UnknownBuiltin {
        exit: String,
        point: ExitPoint,
        name: String,
        known: String,
    },
    #[error("exit {exit:?} at {point}: {problem}")]
    Builtin {
        exit: String,
        point: ExitPoint,
        problem: String,
    },
    #[error("exit {exit:?} at {point}: {source}")]
    Load {
        exit: String,
        point: ExitPoint,
        #[source]
        source: LoadError,
    },
    #[error(transparent)]
    Start(#[from] StartError),
}

/// The known built-in exits; external exits need no registration.
#[derive(Clone, Default)]
pub struct ExitRegistry {
    builtins: BTreeMap<String, BuiltinFactory>,
}

impl ExitRegistry {
    /// A registry without built-in exits.
    pub fn new() -> Self {
        Self::default()
    }

    /// A registry with mqgate's built-in exits (`destination-rewrite`,
    /// `rfh-properties`, `convert`).
    pub fn with_builtins() -> Self {
        let mut r = Self::new();
        r.register(
            "destination-rewrite",
            Arc::new(|point, data| {
                if !destination_rewrite::allowed_at(point) {
                    return Err("destination-rewrite works on transmission messages: \
                         configure it at receive, send or message"
                        .to_string());
                }
                DestinationRewrite::from_exit_data(data)
                    .map(|e| Box::new(e) as Box<dyn Exit>)
                    .map_err(|e| e.to_string())
            }),
        );
        r.register(
            "rfh-properties",
            Arc::new(|point, data| {
                if !rfh_properties::allowed_at(point) {
                    return Err("rfh-properties edits messages: configure it at receive, \
                         send, message, before_put or after_get"
                        .to_string());
                }
                RfhProperties::from_exit_data(data)
                    .map(|e| Box::new(e) as Box<dyn Exit>)
                    .map_err(|e| e.to_string())
            }),
        );
        r.register(
            "convert",
            Arc::new(|point, data| {
                if !convert::allowed_at(point) {
                    return Err("convert changes messages: configure it at receive, send, \
                         message, before_put or after_get"
                        .to_string());
                }
                Convert::from_exit_data(data)
                    .map(|e| Box::new(e) as Box<dyn Exit>)
                    .map_err(|e| e.to_string())
            }),
        );
        r
    }

    /// Adds (or replaces) a built-in exit.
    pub fn register(&mut self, name: &str, factory: BuiltinFactory) {
        self.builtins.insert(name.to_string(), factory);
    }

    /// Instantiates one configured exit (loading its library if external).
    pub fn entry(&self, point: ExitPoint, def: &ExitDef) -> Result<ChainEntry, BuildError> {
        let name = def.display_name();
        let exit: Box<dyn Exit> = match &def.exit {
            ExitRef::Builtin(b) => {
                let Some(factory) = self.builtins.get(b) else {
                    return Err(BuildError::UnknownBuiltin {
                        exit: name,
                        point,
                        name: b.clone(),
                        known: self.builtins.keys().cloned().collect::<Vec<_>>().join(", "),
                    });
                };
                factory(point, &def.data).map_err(|problem| BuildError::Builtin {
                    exit: name.clone(),
                    point,
                    problem,
                })?
            }
            ExitRef::External { library, function } => Box::new(
                CExit::load(library, function)
                    .map_err(|source| BuildError::Load {
                        exit: name.clone(),
                        point,
                        source,
                    })?
                    .with_buffer_headroom(def.buffer_headroom.min(MAX_BUFFER_HEADROOM)),
            ),
        };
        Ok(ChainEntry {
            name,
            exit_data: def.data.clone(),
            time_budget: Duration::from_millis(def.time_budget_ms),
            on_failure: def.on_failure,
            isolation: def.effective_isolation(),
            exit,
        })
    }

    /// Builds and starts (MQXR_INIT) the chain at `point` for `object_name`
    /// (global exits first, then the object's own).
    pub fn build_chain(
        &self,
        config: &ExitsConfig,
        point: ExitPoint,
        object_name: &str,
        q_mgr_name: &str,
    ) -> Result<ExitChain, BuildError> {
        let entries = config
            .chain_defs(point, object_name)
            .into_iter()
            .map(|d| self.entry(point, d))
            .collect::<Result<Vec<_>, _>>()?;
        Ok(ExitChain::start(point, object_name, q_mgr_name, entries)?)
    }

    /// Checks every configured exit without starting it: built-in names and
    /// their exit data, external libraries and functions (loaded, not called).
    pub fn check(&self, config: &ExitsConfig) -> Vec<BuildError> {
        let sections = std::iter::once(&config.global)
            .chain(config.channels.values())
            .chain(config.queues.values());
        let mut errors = Vec::new();
        for chains in sections {
            for point in ExitPoint::ALL {
                for def in chains.at(point) {
                    if let Err(e) = self.entry(point, def) {
                        errors.push(e);
                    }
                }
            }
        }
        errors
    }
}
