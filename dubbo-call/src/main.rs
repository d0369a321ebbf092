//! `dubbo-call`: call a Dubbo 2 provider from the command line, in the spirit of grpcurl.
//!
//! ```text
//! dubbo-call 127.0.0.1:20880 com.example.Greeter sayHello \
//!     --types java.lang.String --args '["world"]' [--version 1.0.0] [--group g] \
//!     [--attach k=v]... [--timeout 3000] [--generic] [--serialization fastjson2] \
//!     [--output pretty|json|raw]        (--args @FILE or --args - read the JSON from a file
//!                                        or standard input; --help prints examples)
//! dubbo-call --registry zookeeper://127.0.0.1:2181 com.example.Greeter sayHello ...
//! dubbo-call --registry zookeeper://127.0.0.1:2181 --list [SERVICE]
//! dubbo-call --registry zookeeper://127.0.0.1:2181 --describe SERVICE [METHOD]
//! dubbo-call 127.0.0.1:20880 --describe SERVICE [METHOD] --app APPLICATION
//! dubbo-call tri://127.0.0.1:50051 com.example.Greeter sayHello ...   (Triple)
//! dubbo-call --protocol tri --registry zookeeper://127.0.0.1:2181 com.example.Greeter sayHello ...
//! dubbo-call call|list|describe ...            (the forms above, --list, --describe)
//! dubbo-call --completions bash|elvish|fish|powershell|zsh
//! ```
//!
//! With `--registry` the provider is one the registry lists (of `--version` and `--group`
//! when given), picked at random; a provider that fails (refuses the connection, times out,
//! answers an error status) is replaced by another, up to two more times (Dubbo's failover).
//! Each provider is called over the protocol a Dubbo 3.3 consumer would pick: Triple where its
//! URL says `preferred.protocol=tri` (or is a `tri://` URL), else the Dubbo protocol;
//! `--protocol` narrows that as Dubbo's `protocol` setting of a consumer does.
//! `--list` prints every service of the registry with its providers' versions and groups;
//! `--list SERVICE` prints each provider of it: address, version, group, application,
//! Dubbo release, and its methods. Providers are found as a client finds them: Dubbo 3
//! application instances (their metadata asked from their MetadataService), else the
//! interface-level registrations.
//!
//! `--describe SERVICE [METHOD]` prints the methods (or METHOD's overloads) with their Java
//! parameter and return types and the classes they use: from the service definition each
//! application serving it published in the registry's metadata report (what Dubbo 2.7 with a
//! metadata report and Dubbo 3 by default write under `/dubbo/metadata/`), else only the
//! method names of the provider URLs, said to be without types. Against `HOST:PORT` it asks
//! the MetadataService of application `--app` there (a 2.7 one answers definitions, a 3.x one
//! only method names).
//!
//! The JSON arguments are mapped to Hessian by the Java types given with `--types`
//! (comma-separated, one per argument): `int`/`short`/`byte` (and boxes) → int, `long` → long,
//! `float`/`double` → double, `boolean`, `char`/`java.lang.String` → string,
//! `java.util.Date` → date (milliseconds), `java.math.BigDecimal` → decimal (string or
//! number), `java.time.LocalDate`, `LocalTime`, `LocalDateTime`, `Instant`, `Duration`,
//! `Period`, `Year`, `YearMonth`, `MonthDay`, `ZoneOffset`, `ZoneId`, `OffsetTime`,
//! `OffsetDateTime`, `ZonedDateTime` → their ISO-8601 text (`"2024-02-29T13:45:30"`, as Java's
//! `toString()` writes and `parse` reads it), `java.util.UUID` / `Locale` / `Currency` → their
//! `toString()` text, `X[]` → a typed array, `java.util.List`/`Set`/`Collection` → list,
//! `java.util.Map` → map, and any other class → an object of that class from a JSON object
//! (its `class` entry, if any, overrides the class). Values inside lists, maps and objects,
//! and arguments of type `java.lang.Object`, are mapped by their JSON kind: integers → int
//! or long, other numbers → double, objects → maps, or objects of the class named by their
//! `class` entry; `{"class": "java.time.LocalDateTime", "value": "2024-02-29T13:45:30"}` is
//! that Java value (likewise every type above given as text: a DTO's `java.time`,
//! `BigDecimal` and `UUID` fields). An enum is `{"class": ENUM, "name": CONSTANT}` in hessian2
//! (hessian-lite's form) and its constant's name in fastjson2.
//!
//! The result is printed as JSON on stdout (objects with a `class` entry, dates as
//! milliseconds, binaries as base64, `java.time` values as ISO-8601 text, `BigDecimal`,
//! `UUID`, `Locale`, `Currency` and `Class` as their Java `toString()`; in fastjson2 a
//! `UUID` field is the base64 of its 16 bytes and an enum its ordinal, as Java writes them), indented (`--output pretty`, the default) or on one line
//! (`--output json`); `--output raw` writes the answer's body bytes as the provider sent them,
//! for `hessian2-dump --annotate -`. A Java exception is printed as
//! `{"exception": class, "message": ...}` on stdout with exit status 1; any other failure
//! (connection, timeout, status such as SERVICE_NOT_FOUND) is described on stderr with exit
//! status 2; bad usage exits with 64.

mod cli;
mod describe;
mod list;
mod options;

use std::io::Write;
use std::process::ExitCode;
use std::time::Duration;

use dubbo_codec::{JavaException, Request, Response};
use dubbo_rpc::client::{CallError, Client, ClientConfig};
use dubbo_rpc::cluster::{ClusterClient, ClusterConfig};
use dubbo_rpc::triple_client::{Client as TripleClient, TripleCall, TripleError};
use hessian2::value::{Stream, Value};
use serde_json::Value as Json;

use describe::{describe_provider, describe_registry, Target};
use dubbo_codec::json::{to_hessian, to_json};
use list::list;
use options::{parse_args, Invocation, Options, Output, HELP, USAGE};

async fn run(o: Options) -> ExitCode {
    if let (Some(registry), Some(service)) = (&o.registry, &o.list) {
        return match list(registry, service.as_deref()).await {
            Ok(()) => ExitCode::SUCCESS,
            Err(e) => {
                eprintln!("dubbo-call: {e}");
                ExitCode::from(2)
            }
        };
    }
    let config = ClientConfig::default()
        .timeout(o.timeout)
        .connect_timeout(o.timeout.max(Duration::from_secs(1)));
    if o.describe {
        let target = Target {
            service: &o.service,
            method: Some(o.method.as_str()).filter(|m| !m.is_empty()),
            version: o.version.as_deref(),
            group: o.group.as_deref(),
        };
        let described = match (&o.registry, &o.app) {
            (Some(registry), _) => describe_registry(registry, &target, o.output).await,
            (None, Some(app)) => {
                let triple = o.protocol.as_deref() == Some("tri");
                describe_provider(&o.addr, triple, app, &target, config, o.output).await
            }
            (None, None) => Err("--describe needs --registry or --app".to_owned()),
        };
        return match described {
            Ok(()) => ExitCode::SUCCESS,
            Err(e) => {
                eprintln!("dubbo-call: {e}");
                ExitCode::from(2)
            }
        };
    }
    let values = match o
        .types
        .iter()
        .zip(&o.args)
        .enumerate()
        .map(|(i, (t, a))| to_hessian(t, a).map_err(|e| format!("argument {i}: {e}")))
        .collect::<Result<Vec<_>, _>>()
    {
        Ok(v) => v,
        Err(e) => {
            eprintln!("dubbo-call: {e}");
            return ExitCode::from(64);
        }
    };
    let mut b = if o.generic {
        let types: Vec<&str> = o.types.iter().map(String::as_str).collect();
        Request::generic(&o.service, &o.method, &types, values)
    } else {
        let mut b = Request::builder(&o.service, &o.method);
        for (t, v) in o.types.iter().zip(values) {
            b = b.value_arg(t, v);
        }
        b
    };
    if let Some(v) = &o.version {
        b = b.version(v);
    }
    if let Some(g) = &o.group {
        b = b.group(g);
    }
    b = b.timeout(o.timeout).format(o.format);
    for (k, v) in &o.attachments {
        b = b.attach(k, v.as_str());
    }
    let req = match b.build() {
        Ok(r) => r,
        Err(e) => {
            eprintln!("dubbo-call: {e}");
            return ExitCode::from(64);
        }
    };
    if o.output == Output::Raw {
        return raw_call(&o.addr, &req, config).await;
    }
    let answer = match &o.registry {
        Some(registry) => registry_call(registry, &o, &req, config).await,
        None if o.protocol.as_deref() == Some("tri") => triple_call(&o.addr, &req, o.timeout).await,
        None => match Client::connect_with(o.addr.clone(), config).await {
            Ok(client) => client.call_value(&req).await.map_err(Failure::from),
            Err(e) => Err(e.to_string().into()),
        },
    };
    print_answer(answer, o.output)
}

/// Prints a call's answer as JSON; its exit status.
fn print_answer(answer: Result<Value, Failure>, output: Output) -> ExitCode {
    match answer {
        Ok(v) => {
            let stream = Stream { values: vec![v] };
            print_json(&to_json(&stream.values[0], &stream), output);
            ExitCode::SUCCESS
        }
        Err(Failure::Exception(e)) => {
            let json = serde_json::json!({ "exception": e.class, "message": e.message });
            print_json(&json, output);
            ExitCode::from(1)
        }
        Err(Failure::Other(e)) => {
            eprintln!("dubbo-call: {e}");
            ExitCode::from(2)
        }
    }
}

/// The call over Triple (an interface-style call, as a Java consumer makes it).
async fn triple_call(addr: &str, req: &Request, timeout: Duration) -> Result<Value, Failure> {
    let call = TripleCall::from_request(req, timeout).map_err(|e| e.to_string())?;
    let client = TripleClient::connect(addr)
        .await
        .map_err(|e| e.to_string())?;
    client.call_value(&call).await.map_err(|e| match e {
        TripleError::Exception(x) => Failure::Exception(x),
        other => Failure::Other(other.to_string()),
    })
}

fn print_json(json: &Json, output: Output) {
    let text = match output {
        Output::Json => serde_json::to_string(json),
        _ => serde_json::to_string_pretty(json),
    };
    println!("{}", text.unwrap_or_default());
}

/// `--output raw`: the answer's body bytes, as the provider wrote them, on stdout; the exit
/// status as for the other outputs.
async fn raw_call(addr: &str, req: &Request, config: ClientConfig) -> ExitCode {
    let timeout = config.timeout;
    let frame = match Client::connect_with(addr.to_owned(), config).await {
        Ok(client) => client.send_frame(req.to_frame(1, true), timeout).await,
        Err(e) => Err(e),
    };
    let frame = match frame {
        Ok(f) => f,
        Err(e) => {
            eprintln!("dubbo-call: {e}");
            return ExitCode::from(2);
        }
    };
    if std::io::stdout().write_all(frame.body()).is_err() {
        return ExitCode::from(2);
    }
    match Response::from_frame(&frame) {
        Ok(Response::Result(r)) if r.exception().is_some() => ExitCode::from(1),
        Ok(Response::Result(_)) => ExitCode::SUCCESS,
        Ok(Response::Error { status, message }) => {
            eprintln!("dubbo-call: {status:?}: {}", message.unwrap_or_default());
            ExitCode::from(2)
        }
        Err(e) => {
            eprintln!("dubbo-call: the answer's body: {e}");
            ExitCode::from(2)
        }
    }
}

/// Why a call gave no result: the provider threw, or anything else (described).
enum Failure {
    Exception(JavaException),
    Other(String),
}

impl From<String> for Failure {
    fn from(s: String) -> Self {
        Failure::Other(s)
    }
}

impl From<CallError> for Failure {
    fn from(e: CallError) -> Self {
        match e {
            CallError::Exception(x) => Failure::Exception(x),
            other => Failure::Other(other.to_string()),
        }
    }
}

/// The call through a provider the registry lists (Dubbo's failover over them).
async fn registry_call(
    registry: &str,
    o: &Options,
    req: &Request,
    client: ClientConfig,
) -> Result<Value, Failure> {
    let registry = dubbo_registry::connect(registry)
        .await
        .map_err(|e| e.to_string())?;
    let mut b = ClusterClient::builder(registry, &o.service);
    if let Some(v) = &o.version {
        b = b.version(v);
    }
    if let Some(g) = &o.group {
        b = b.group(g);
    }
    let mut config = ClusterConfig::default().client(client);
    config.protocol = o.protocol.clone();
    let cluster = b.config(config).build().await.map_err(|e| e.to_string())?;
    cluster
        .call_value(req)
        .await
        .map_err(|e| match e.java_exception() {
            Some(x) => Failure::Exception(x.clone()),
            None => Failure::Other(e.to_string()),
        })
}

fn main() -> ExitCode {
    let options = match parse_args(std::env::args().skip(1)) {
        Ok(Invocation::Run(o)) => *o,
        Ok(Invocation::Help) => {
            println!("{USAGE}\n{HELP}");
            return ExitCode::SUCCESS;
        }
        Ok(Invocation::Completions(shell)) => {
            let mut command = <cli::Cli as clap::CommandFactory>::command();
            clap_complete::generate(shell, &mut command, "dubbo-call", &mut std::io::stdout());
            return ExitCode::SUCCESS;
        }
        Err(e) => {
            eprintln!("dubbo-call: {e}");
            eprintln!("{USAGE}");
            return ExitCode::from(64);
        }
    };
    let rt = match tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
    {
        Ok(rt) => rt,
        Err(e) => {
            eprintln!("dubbo-call: {e}");
            return ExitCode::from(2);
        }
    };
    rt.block_on(run(options))
}
