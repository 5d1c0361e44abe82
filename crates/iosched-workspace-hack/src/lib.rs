//! No code: this crate exists for its Cargo.toml, which turns on the dependency features that
//! `cargo test --workspace` turns on, so that crates built on their own reuse the test build's artifacts.
