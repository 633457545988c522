//! `ctk list`.

use crate::cli::args::{ListArgs, ProtocolArg};
use crate::cli::{plan, terminal, CliError};
use crate::errors::UsageError;
use crate::exit_code;
use ctk_agent_hooks_suite::declaration;
use ctk_agent_hooks_suite::surface::{applicability, Applicability};

/// Print `part::id  [spec versions]  title` for each selected vector; with
/// `--declaration`, add `  (skip: reason)` for vectors that do not apply.
/// `--protocol ahp` lists the AHP vectors instead.
pub fn command(args: &ListArgs) -> Result<u8, CliError> {
    match args.protocol {
        ProtocolArg::Ahp => return crate::cli::run_ahp::list(args),
        ProtocolArg::AgentHooks if args.role.is_some() => {
            return Err(UsageError("--role is an AHP option (--protocol ahp)".into()).into())
        }
        ProtocolArg::AgentHooks => {}
    }
    let surface =
        plan::declaration(args.declaration.as_deref())?.map(|(_, doc)| declaration::surface(&doc));
    let spec = plan::spec(args.select.spec);
    for v in plan::vectors(&args.select)? {
        let specs: Vec<_> = v
            .vector
            .spec_versions()
            .iter()
            .map(|s| s.as_str())
            .collect();
        let skip = match surface.as_ref().map(|s| applicability(&v.vector, s, spec)) {
            Some(Applicability::Skip(reason)) => format!("  (skip: {reason})"),
            _ => String::new(),
        };
        terminal::out_line(&format!(
            "{}::{}  [{}]  {}{skip}",
            v.vector.part(),
            v.vector.id,
            specs.join(","),
            v.vector.title
        ));
    }
    Ok(exit_code::SUCCESS)
}
