// Empty: a build script makes cargo take the build-dependencies' features (Cargo.toml) into the host build.
fn main() {}
