//! The command line: options, `--help`, and where `--args` comes from.

use std::time::Duration;

use serde_json::Value as Json;

use crate::cli::{CallArgs, Cli, Command};
use clap::Parser as _;

pub const USAGE: &str =
    "usage: dubbo-call [tri://]HOST:PORT SERVICE METHOD [--types T1,T2,...] [--args JSON_ARRAY|@FILE|-] \
[--version V] [--group G] [--attach K=V]... [--timeout MS] [--generic] \
[--serialization hessian2|fastjson2] [--protocol dubbo|tri] [--output pretty|json|raw]
       dubbo-call --registry zookeeper://HOST:PORT SERVICE METHOD [options as above]
       dubbo-call --registry zookeeper://HOST:PORT --list [SERVICE]
       dubbo-call --registry zookeeper://HOST:PORT --describe SERVICE [METHOD] [--version V] [--group G] [--output pretty|json]
       dubbo-call HOST:PORT --describe SERVICE [METHOD] --app APPLICATION [--version V] [--group G] [--output pretty|json]
       dubbo-call call|list|describe ...   (the same as the forms above, --list, --describe)
       dubbo-call --completions bash|elvish|fish|powershell|zsh
       dubbo-call --help";

/// `--help`: the usage, what each option does, the exit statuses and examples.
pub const HELP: &str = "
Calls a method of a Dubbo service and prints the result as JSON: over the Dubbo protocol
(HOST:PORT), or over Triple, Dubbo 3's gRPC over HTTP/2 (tri://HOST:PORT), as a Java
consumer of the service's interface calls it.

options:
  --types T1,T2,...     the Java parameter types, one per argument (int, long, double,
                        boolean, java.lang.String, java.util.Date, java.math.BigDecimal,
                        java.time.* and java.util.UUID/Locale/Currency (as their ISO-8601
                        or toString() text), X[], java.util.List, java.util.Map, or a class
                        name for an object); inside objects and lists, where no type is
                        declared, {\"class\": \"java.time.LocalDate\", \"value\": \"2024-12-31\"}
                        is that Java value (likewise the other types given as text above)
  --args JSON_ARRAY     the arguments as a JSON array; @FILE reads it from a file, - from
                        standard input
  --version V, --group G
                        the service's version and group
  --attach K=V          an attachment (repeatable)
  --timeout MS          the call's timeout (default 3000)
  --generic             call through $invoke (GenericService), as a consumer without the
                        service's classes does
  --serialization NAME  hessian2 (default) or fastjson2 (Dubbo 3.2+)
  --protocol dubbo|tri  with HOST:PORT: the protocol spoken (tri is the same as tri://HOST:PORT;
                        default dubbo); with --registry: only providers registered with it, over
                        it where they serve it (default: each provider's preferred.protocol, else
                        its URL's protocol, as a Dubbo 3.3 consumer picks)
  --output pretty|json|raw
                        indented JSON (default), one line of JSON, or the response body's
                        bytes as they came (HOST:PORT only)
  --registry URL        find the provider in a registry (zookeeper://HOST:PORT) instead of
                        HOST:PORT; a failing provider is replaced by another (failover); over
                        Triple where the provider prefers it (preferred.protocol=tri)
  --list [SERVICE]      with --registry: every service, or one service's providers and methods
  --describe SERVICE [METHOD]
                        the service's methods (or METHOD's overloads) with their Java parameter
                        and return types and the classes they use, from the service definition
                        the provider published in the registry's metadata report (Dubbo 2.7
                        with a metadata report, Dubbo 3 by default); without one, the method
                        names of its URLs (types unknown). With HOST:PORT (a Dubbo 3 provider's
                        MetadataService port; tri://HOST:PORT when it serves it over Triple, as
                        3.3 does when its protocol is tri) and --app: what its MetadataService
                        says.
                        --output pretty (default) prints Java-like signatures, json one line
  --app APPLICATION     with HOST:PORT --describe: the provider's application (Dubbo exports
                        the MetadataService in that group)
  --completions SHELL   print the completion script of bash, elvish, fish, powershell or zsh
                        (also `dubbo-call completions SHELL`)

subcommands (optional, the same as the plain forms): `call` (a call), `list` (--list),
`describe` (--describe), `completions SHELL`.

exit status: 0 the call returned; 1 the provider threw (the Java exception is printed as
{\"exception\": class, \"message\": ...} on stdout); 2 anything else failed (connection,
timeout, a status such as SERVICE_NOT_FOUND, no provider or no such method to describe; on
stderr); 64 bad usage.

examples:
  dubbo-call 127.0.0.1:20880 com.example.Greeter sayHello --version 1.0.0 \\
      --types java.lang.String --args '[\"world\"]'
  echo '[{\"id\": 7, \"name\": \"alice\"}]' | dubbo-call 127.0.0.1:20880 com.example.Users save \\
      --types com.example.User --args -
  dubbo-call 127.0.0.1:20880 com.example.Greeter sayHello --types java.lang.String \\
      --args @args.json --serialization fastjson2 --output json
  dubbo-call 127.0.0.1:20880 com.example.Greeter sayHello --types java.lang.String \\
      --args '[\"x\"]' --output raw | hessian2-dump --annotate -
  dubbo-call tri://127.0.0.1:50051 com.example.Greeter sayHello --types java.lang.String \\
      --args '[\"triple\"]'
  dubbo-call --registry zookeeper://127.0.0.1:2181 --list
  dubbo-call --registry zookeeper://127.0.0.1:2181 com.example.Greeter sayHello \\
      --types java.lang.String --args '[\"world\"]'
  dubbo-call --registry zookeeper://127.0.0.1:2181 --describe com.example.Greeter
  dubbo-call --registry zookeeper://127.0.0.1:2181 --describe com.example.Greeter sayHello \\
      --output json
  dubbo-call 127.0.0.1:20880 --describe com.example.Greeter --app greeter-app
  dubbo-call list --registry zookeeper://127.0.0.1:2181 com.example.Greeter
  dubbo-call --completions bash > /etc/bash_completion.d/dubbo-call
";

#[derive(Debug)]
pub struct Options {
    /// The provider's address; empty with `registry`.
    pub addr: String,
    pub registry: Option<String>,
    /// `--list`: the services of the registry (`Some(None)`) or one's providers.
    pub list: Option<Option<String>>,
    /// `--describe SERVICE [METHOD]` (`method` empty: every method).
    pub describe: bool,
    /// `--app`: the application whose MetadataService `--describe` asks at `addr`.
    pub app: Option<String>,
    pub service: String,
    pub method: String,
    pub types: Vec<String>,
    pub args: Vec<Json>,
    pub version: Option<String>,
    pub group: Option<String>,
    pub attachments: Vec<(String, String)>,
    pub timeout: Duration,
    pub generic: bool,
    pub format: dubbo_codec::BodyFormat,
    /// `--protocol`: `dubbo` or `tri` (`tri://HOST:PORT` sets it too).
    pub protocol: Option<String>,
    /// `--output`: how the result is printed.
    pub output: Output,
}

/// `--output`: the result as one line of JSON, as indented JSON, or the response body's bytes
/// as they came (for `hessian2-dump --annotate -`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Output {
    Json,
    Pretty,
    Raw,
}

/// The text of `--args`: inline JSON, `@FILE`, or `-` for standard input.
fn args_text(value: String) -> Result<String, String> {
    if value == "-" {
        let mut text = String::new();
        std::io::Read::read_to_string(&mut std::io::stdin(), &mut text)
            .map_err(|e| format!("--args -: reading standard input: {e}"))?;
        Ok(text)
    } else if let Some(path) = value.strip_prefix('@') {
        std::fs::read_to_string(path).map_err(|e| format!("--args @{path}: {e}"))
    } else {
        Ok(value)
    }
}

/// What the command line asks for.
#[derive(Debug)]
pub enum Invocation {
    /// A call, a `--list` or a `--describe`.
    Run(Box<Options>),
    /// `--help`.
    Help,
    /// `--completions SHELL` or `completions SHELL`: the completion script.
    Completions(clap_complete::Shell),
}

/// Parses the arguments after the program's name.
pub fn parse_args(argv: impl Iterator<Item = String>) -> Result<Invocation, String> {
    let cli =
        Cli::try_parse_from(std::iter::once("dubbo-call".to_owned()).chain(argv)).map_err(|e| {
            // clap's first line says what is wrong; the usage follows from main.
            let text = e.render().to_string();
            let first = text.lines().next().unwrap_or_default();
            first.strip_prefix("error: ").unwrap_or(first).to_owned()
        })?;
    let (mut call, list, describe) = match cli.command {
        None => (cli.call, false, false),
        Some(Command::Call(a)) => (a, false, false),
        Some(Command::List(a)) => (a, true, false),
        Some(Command::Describe(a)) => (a, false, true),
        Some(Command::Completions { shell }) => return Ok(Invocation::Completions(shell)),
    };
    if let Some(shell) = cli.completions {
        return Ok(Invocation::Completions(shell));
    }
    if call.help {
        return Ok(Invocation::Help);
    }
    call.list |= list;
    call.describe |= describe;
    options(call).map(|o| Invocation::Run(Box::new(o)))
}

/// Checks what the options mean together and reads `--args`.
fn options(call: CallArgs) -> Result<Options, String> {
    let mut positional = call.positional;
    let types: Vec<String> = call
        .types
        .map(|t| {
            t.split(',')
                .map(|t| t.trim().to_owned())
                .filter(|t| !t.is_empty())
                .collect()
        })
        .unwrap_or_default();
    let args = match call.args {
        None => Vec::new(),
        Some(value) => {
            let text = args_text(value)?;
            match serde_json::from_str::<Json>(&text) {
                Ok(Json::Array(a)) => a,
                Ok(_) => return Err("--args must be a JSON array".into()),
                Err(e) => return Err(format!("--args is not JSON: {e}")),
            }
        }
    };
    let (version, group, generic) = (call.version, call.group, call.generic);
    let mut attachments = Vec::new();
    for kv in call.attach {
        let (k, v) = kv
            .split_once('=')
            .ok_or_else(|| format!("--attach {kv}: expected K=V"))?;
        attachments.push((k.to_owned(), v.to_owned()));
    }
    let mut timeout = Duration::from_secs(3);
    if let Some(t) = call.timeout {
        let ms: u64 = t
            .parse()
            .map_err(|_| format!("--timeout {t}: not a number of milliseconds"))?;
        timeout = Duration::from_millis(ms.max(1));
    }
    let mut format = dubbo_codec::BodyFormat::default();
    if let Some(name) = call.serialization {
        format = dubbo_codec::Serialization::from_name(&name)
            .and_then(dubbo_codec::BodyFormat::of)
            .ok_or_else(|| format!("--serialization {name}: not one of hessian2, fastjson2"))?;
    }
    let mut protocol = call.protocol;
    let (registry, list, describe, app) = (call.registry, call.list, call.describe, call.app);
    let output = match call.output.as_deref() {
        None | Some("pretty") => Output::Pretty,
        Some("json") => Output::Json,
        Some("raw") => Output::Raw,
        Some(other) => return Err(format!("--output {other}: not one of json, pretty, raw")),
    };
    if output == Output::Raw && registry.is_some() {
        return Err("--output raw needs HOST:PORT (the bytes of one provider's answer)".into());
    }
    if describe {
        if list || output == Output::Raw {
            return Err("--describe takes no --list and no --output raw".into());
        }
        if registry.is_none() && app.is_none() {
            return Err("--describe HOST:PORT needs --app (or use --registry URL)".into());
        }
        // SERVICE without METHOD: every method.
        let least = if registry.is_some() { 1 } else { 2 };
        if positional.len() == least {
            positional.push(String::new());
        }
    }
    if list {
        if registry.is_none() || positional.len() > 1 {
            return Err("--list needs --registry and at most one SERVICE".into());
        }
        positional.insert(0, String::new());
        positional.resize(3, String::new());
    } else if registry.is_some() {
        positional.insert(0, String::new());
    }
    let [addr, service, method]: [String; 3] =
        positional.try_into().map_err(|p: Vec<String>| {
            format!(
                "expected HOST:PORT SERVICE METHOD (or --registry URL SERVICE METHOD), got {} argument(s)",
                p.len() - usize::from(registry.is_some())
            )
        })?;
    let list = list.then(|| Some(service.clone()).filter(|s| !s.is_empty()));
    // tri://HOST:PORT is --protocol tri.
    let addr = match addr.strip_prefix("tri://") {
        Some(plain) if protocol.as_deref() != Some("dubbo") => {
            protocol = Some("tri".to_owned());
            plain.to_owned()
        }
        Some(_) => return Err("tri://HOST:PORT with --protocol dubbo".into()),
        None => addr,
    };
    if protocol.as_deref() == Some("tri") && registry.is_none() {
        if output == Output::Raw {
            return Err("--output raw is for the Dubbo protocol".into());
        }
        if generic {
            return Err("--generic is for the Dubbo protocol".into());
        }
    }
    if types.len() != args.len() {
        return Err(format!(
            "{} type(s) given with --types but {} argument(s) with --args",
            types.len(),
            args.len()
        ));
    }
    Ok(Options {
        addr,
        registry,
        list,
        describe,
        app,
        service,
        method,
        types,
        args,
        version,
        group,
        attachments,
        timeout,
        generic,
        format,
        protocol,
        output,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The options of a call (what most tests parse).
    fn parse_args(argv: impl Iterator<Item = String>) -> Result<Options, String> {
        match super::parse_args(argv)? {
            Invocation::Run(o) => Ok(*o),
            other => Err(format!("not a call: {other:?}")),
        }
    }

    #[test]
    fn subcommands_spell_the_flags_and_help_and_completions_are_no_call() {
        let parse = |a: &[&str]| super::parse_args(a.iter().map(|s| s.to_string()));
        let Ok(Invocation::Run(o)) = parse(&["list", "--registry", "zookeeper://127.0.0.1:1"])
        else {
            panic!("list")
        };
        assert_eq!(o.list, Some(None));
        let Ok(Invocation::Run(o)) =
            parse(&["describe", "S", "--registry", "zookeeper://127.0.0.1:1"])
        else {
            panic!("describe")
        };
        assert!(o.describe);
        assert_eq!(o.service, "S");
        let Ok(Invocation::Run(o)) = parse(&["call", "127.0.0.1:1", "S", "m", "--generic"]) else {
            panic!("call")
        };
        assert_eq!((o.addr.as_str(), o.generic), ("127.0.0.1:1", true));
        assert!(matches!(parse(&["--help"]), Ok(Invocation::Help)));
        assert!(matches!(
            parse(&["127.0.0.1:1", "-h"]),
            Ok(Invocation::Help)
        ));
        assert!(matches!(
            parse(&["--completions", "bash"]),
            Ok(Invocation::Completions(clap_complete::Shell::Bash))
        ));
        assert!(matches!(
            parse(&["completions", "zsh"]),
            Ok(Invocation::Completions(clap_complete::Shell::Zsh))
        ));
        assert!(parse(&["--completions", "tcsh"]).is_err());
        // As before: an option given twice counts once, the last; options anywhere.
        let Ok(Invocation::Run(o)) = parse(&[
            "--version",
            "1",
            "127.0.0.1:1",
            "--version",
            "2",
            "S",
            "--timeout",
            "5",
            "m",
        ]) else {
            panic!("repeated")
        };
        assert_eq!(o.version.as_deref(), Some("2"));
        assert_eq!(o.timeout, Duration::from_millis(5));
        assert!(parse(&["127.0.0.1:1", "S", "m", "--bogus"])
            .unwrap_err()
            .contains("--bogus"));
    }

    #[test]
    fn parses_the_command_line() {
        let o = parse_args(
            [
                "127.0.0.1:1",
                "S",
                "m",
                "--types",
                "int,long",
                "--args",
                "[1,2]",
                "--attach",
                "a=b=c",
            ]
            .into_iter()
            .map(String::from),
        )
        .unwrap();
        assert_eq!(o.types, ["int", "long"]);
        assert_eq!(o.attachments, [("a".to_owned(), "b=c".to_owned())]);
        assert!(parse_args(["a", "b"].into_iter().map(String::from)).is_err());
        assert!(parse_args(
            ["a", "b", "c", "--args", "[1]"]
                .into_iter()
                .map(String::from)
        )
        .is_err());
    }

    #[test]
    fn arguments_come_inline_from_a_file_or_as_output_options() {
        let path =
            std::env::temp_dir().join(format!("dubbo-call-args-{}.json", std::process::id()));
        std::fs::write(&path, "[1, \"two\"]").unwrap();
        let argv = |extra: &[&str]| {
            ["127.0.0.1:1", "S", "m", "--types", "int,java.lang.String"]
                .iter()
                .chain(extra)
                .map(|s| s.to_string())
                .collect::<Vec<_>>()
        };
        let from_file = format!("@{}", path.display());
        let o = parse_args(argv(&["--args", &from_file, "--output", "json"]).into_iter()).unwrap();
        assert_eq!(o.args, [serde_json::json!(1), serde_json::json!("two")]);
        assert_eq!(o.output, Output::Json);
        let _ = std::fs::remove_file(&path);
        let missing = parse_args(argv(&["--args", "@/nonexistent/args.json"]).into_iter());
        assert!(missing.unwrap_err().contains("/nonexistent/args.json"));
        assert!(parse_args(argv(&["--args", "[1,2]", "--output", "xml"]).into_iter()).is_err());
        let raw_with_registry = parse_args(
            [
                "--registry",
                "zookeeper://127.0.0.1:1",
                "S",
                "m",
                "--output",
                "raw",
            ]
            .into_iter()
            .map(String::from),
        );
        assert!(raw_with_registry.unwrap_err().contains("--output raw"));
    }

    #[test]
    fn describe_takes_a_service_and_maybe_a_method() {
        let parse = |a: &[&str]| parse_args(a.iter().map(|s| s.to_string()));
        let o = parse(&["--registry", "zookeeper://127.0.0.1:1", "--describe", "S"]).unwrap();
        assert!(o.describe);
        assert_eq!((o.service.as_str(), o.method.as_str()), ("S", ""));
        let o = parse(&["127.0.0.1:1", "--describe", "S", "m", "--app", "a"]).unwrap();
        assert_eq!(
            (o.addr.as_str(), o.service.as_str(), o.method.as_str()),
            ("127.0.0.1:1", "S", "m")
        );
        assert_eq!(o.app.as_deref(), Some("a"));
        assert!(parse(&["127.0.0.1:1", "--describe", "S"])
            .unwrap_err()
            .contains("--app"));
        let registry = ["--registry", "zookeeper://127.0.0.1:1", "--describe", "S"];
        assert!(parse(&[&registry[..], &["--list"]].concat()).is_err());
        assert!(parse(&[&registry[..], &["--output", "raw"]].concat()).is_err());
        assert!(parse(&[&registry[..], &["m", "extra"]].concat()).is_err());
    }

    #[test]
    fn the_protocol_comes_from_tri_urls_or_the_option() {
        let parse = |a: &[&str]| parse_args(a.iter().map(|s| s.to_string()));
        let o = parse(&["tri://127.0.0.1:1", "S", "m"]).unwrap();
        assert_eq!(
            (o.addr.as_str(), o.protocol.as_deref()),
            ("127.0.0.1:1", Some("tri"))
        );
        let o = parse(&["127.0.0.1:1", "S", "m", "--protocol", "tri"]).unwrap();
        assert_eq!(
            (o.addr.as_str(), o.protocol.as_deref()),
            ("127.0.0.1:1", Some("tri"))
        );
        let o = parse(&["127.0.0.1:1", "S", "m"]).unwrap();
        assert_eq!(o.protocol, None);
        let o = parse(&[
            "--registry",
            "zookeeper://127.0.0.1:1",
            "S",
            "m",
            "--protocol",
            "dubbo",
        ]);
        assert_eq!(o.unwrap().protocol.as_deref(), Some("dubbo"));
        let refused = [
            &["127.0.0.1:1", "S", "m", "--protocol", "rest"][..],
            &["tri://127.0.0.1:1", "S", "m", "--protocol", "dubbo"],
            &["tri://127.0.0.1:1", "S", "m", "--output", "raw"],
            &["tri://127.0.0.1:1", "S", "m", "--generic"],
        ];
        for argv in refused {
            assert!(parse(argv).is_err(), "{argv:?}");
        }
    }
}
