//! The kit's scripted stdio backend as a program of its own, for the
//! harness-role tests: `ctk-ahp-scripted --script FILE --log FILE [-- ARGS...]`.
//! The runner offers the same behaviour as `ctk ahp-backend script`.
//! Arguments after `--` are ignored (they are logged: a vector checks that
//! they arrive verbatim).

use std::path::PathBuf;

fn main() {
    let mut args = std::env::args_os().skip(1);
    let (mut script, mut log) = (None, None);
    while let Some(a) = args.next() {
        match a.to_str() {
            Some("--script") => script = args.next().map(PathBuf::from),
            Some("--log") => log = args.next().map(PathBuf::from),
            Some("--") => break,
            _ => {
                eprintln!("ctk-ahp-scripted: unexpected argument {a:?}");
                std::process::exit(2);
            }
        }
    }
    let (Some(script), Some(log)) = (script, log) else {
        eprintln!("usage: ctk-ahp-scripted --script FILE --log FILE [-- ARGS...]");
        std::process::exit(2);
    };
    match ctk_ahp_suite::harness::scripted::serve_process_stdio(&script, &log) {
        Ok(code) => std::process::exit(code),
        Err(e) => {
            eprintln!("ctk-ahp-scripted: {e}");
            std::process::exit(2);
        }
    }
}
