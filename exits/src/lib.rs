//! mqgate user exits: the exit API, exit chains, built-in exits and the loader
//! for external C exits (DESIGN.md; spec: mq-constants.md "Channel exits").
