pub mod binary;
pub mod datetime;
pub mod error;
pub mod field;
pub mod msg;
pub mod status;
