//! The command line's grammar, for clap: which options exist, which take a value, what values
//! some of them accept (so that shell completions offer them). What the options mean together
//! (`--list` needs `--registry`, `--types` and `--args` of equal length, ...) is checked in
//! [`crate::options`], which turns this into [`crate::options::Options`].
//!
//! Every form of the hand-written parser this replaced still parses: options before, between
//! or after the positionals, an option given twice (the last counts), `--args -`. The
//! subcommands `call`, `list` and `describe` are other spellings of the plain form, `--list`
//! and `--describe`.

use clap::{Args, Parser, Subcommand};
use clap_complete::Shell;

/// `dubbo-call`'s command line. `--help` is the crate's own text ([`crate::options::HELP`]),
/// not clap's, so the help flag is ours too.
#[derive(Debug, Parser)]
#[command(
    name = "dubbo-call",
    disable_help_flag = true,
    disable_help_subcommand = true,
    args_conflicts_with_subcommands = true,
    args_override_self = true
)]
pub struct Cli {
    /// `call`, `list`, `describe` or `completions`; none: the options below.
    #[command(subcommand)]
    pub command: Option<Command>,
    /// The call (or `--list`, `--describe`) without a subcommand.
    #[command(flatten)]
    pub call: CallArgs,
    /// Prints the completion script for SHELL and exits.
    #[arg(long, value_name = "SHELL")]
    pub completions: Option<Shell>,
}

/// The subcommands: each is a spelling of the plain form.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Calls a method: the same as no subcommand.
    #[command(disable_help_flag = true, args_override_self = true)]
    Call(CallArgs),
    /// `--list`: a registry's services, or one service's providers.
    #[command(disable_help_flag = true, args_override_self = true)]
    List(CallArgs),
    /// `--describe`: a service's methods with their Java types.
    #[command(disable_help_flag = true, args_override_self = true)]
    Describe(CallArgs),
    /// Prints the completion script for SHELL (as `--completions SHELL`).
    #[command(disable_help_flag = true)]
    Completions {
        /// bash, elvish, fish, powershell or zsh.
        shell: Shell,
    },
}

/// The options of a call, a `--list` or a `--describe`.
#[derive(Debug, Default, Args)]
pub struct CallArgs {
    /// HOST:PORT (or tri://HOST:PORT) SERVICE METHOD; SERVICE METHOD with --registry; an
    /// optional SERVICE with --list; SERVICE and an optional METHOD with --describe.
    #[arg(value_name = "TARGET")]
    pub positional: Vec<String>,
    /// The Java parameter types, comma-separated.
    #[arg(long, value_name = "T1,T2,...")]
    pub types: Option<String>,
    /// The arguments as a JSON array; @FILE reads it from a file, - from standard input.
    #[arg(long, value_name = "JSON_ARRAY|@FILE|-", allow_hyphen_values = true)]
    pub args: Option<String>,
    /// The service's version.
    #[arg(long, value_name = "V")]
    pub version: Option<String>,
    /// The service's group.
    #[arg(long, value_name = "G")]
    pub group: Option<String>,
    /// An attachment (repeatable).
    #[arg(long, value_name = "K=V")]
    pub attach: Vec<String>,
    /// The call's timeout in milliseconds (default 3000).
    #[arg(long, value_name = "MS")]
    pub timeout: Option<String>,
    /// Calls through $invoke (GenericService).
    #[arg(long)]
    pub generic: bool,
    /// hessian2 (default) or fastjson2.
    #[arg(long, value_name = "NAME", value_parser = ["hessian2", "fastjson2"])]
    pub serialization: Option<String>,
    /// The protocol spoken: dubbo or tri.
    #[arg(long, value_name = "dubbo|tri", value_parser = ["dubbo", "tri"])]
    pub protocol: Option<String>,
    /// pretty (default), json or raw.
    #[arg(long, value_name = "pretty|json|raw", value_parser = ["pretty", "json", "raw"])]
    pub output: Option<String>,
    /// Finds the provider in a registry (zookeeper://HOST:PORT).
    #[arg(long, value_name = "URL", value_hint = clap::ValueHint::Url)]
    pub registry: Option<String>,
    /// With --registry: every service, or one service's providers and methods.
    #[arg(long)]
    pub list: bool,
    /// The service's methods (or METHOD's overloads) with their Java types.
    #[arg(long)]
    pub describe: bool,
    /// With HOST:PORT --describe: the provider's application.
    #[arg(long, value_name = "APPLICATION")]
    pub app: Option<String>,
    /// Prints the usage, every option and examples.
    #[arg(short, long)]
    pub help: bool,
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::CommandFactory;

    #[test]
    fn the_grammar_is_consistent() {
        Cli::command().debug_assert();
    }
}
