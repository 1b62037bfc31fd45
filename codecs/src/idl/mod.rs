//! Software AG IDL (spec: rpc-bridge.md).
