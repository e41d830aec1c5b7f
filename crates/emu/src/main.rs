//! `ecnlab-router CONFIG.json [--max-seconds S]`: the live emulation router
//! as a standalone binary (`ecnlab_emu::router`; the wheel runs the same code
//! through `ecnlab._core.router_main`).

use std::process::ExitCode;

fn main() -> ExitCode {
    let argv: Vec<String> = std::env::args().skip(1).collect();
    ExitCode::from(ecnlab_emu::router::main(&argv))
}
