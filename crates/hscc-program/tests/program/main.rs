//! The loader's and the runtime's integration tests as one binary, a module
//! per subject: one link instead of one per file. Run one subject with
//! `cargo test -p hscc-program --test program NAME::`.

mod divide;
mod kernel_helpers;
mod linux_dctcp;
mod load;

/// The environment every test of this binary runs hooks in, set once before
/// the first: one program cache, and a hook that hangs cut off after 1 s
/// (10 s by default). The hook limit is read once per process, so under a
/// runner that runs the tests on threads of one process (`cargo test`) the
/// first test to run a hook fixes it: every module's tests call this first.
pub fn test_env() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| {
        let dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("program-cache");
        std::env::set_var("HSCC_CACHE_DIR", dir);
        std::env::set_var("HSCC_HOOK_LIMIT_S", "1");
    });
}
