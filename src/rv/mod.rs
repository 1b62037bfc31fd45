//! Rendezvous messages outside the binary form: the JSON form of an
//! envelope and the `NAME:TYPE=VALUE` command-line fields
//! (docs/rendezvous.md "Messages"). The message model and its binary form
//! are `mqgate_codecs::rv`.

pub mod error;
pub mod field_arg;
pub mod json;
mod text;

#[cfg(test)]
mod tests;
