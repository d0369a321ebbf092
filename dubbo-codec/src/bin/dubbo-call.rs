//! `dubbo-call`: call a Dubbo 2 provider from the command line, in the spirit of grpcurl.
//!
//! ```text
//! dubbo-call 127.0.0.1:20880 com.example.Greeter sayHello \
//!     --types java.lang.String --args '["world"]' [--version 1.0.0] [--group g] \
//!     [--attach k=v]... [--timeout 3000] [--generic]
//! dubbo-call --registry zookeeper://127.0.0.1:2181 com.example.Greeter sayHello ...
//! dubbo-call --registry zookeeper://127.0.0.1:2181 --list [SERVICE]
//! ```
//!
//! With `--registry` the provider is one the registry lists (of `--version` and `--group`
//! when given), picked at random; a provider that fails (refuses the connection, times out,
//! answers an error status) is replaced by another, up to two more times (Dubbo's failover).
//! `--list` prints every service of the registry with its providers' versions and groups;
//! `--list SERVICE` prints each provider of it: address, version, group, application,
//! Dubbo release, and its methods. Providers are found as a client finds them: Dubbo 3
//! application instances (their metadata asked from their MetadataService), else the
//! interface-level registrations.
//!
//! The JSON arguments are mapped to Hessian by the Java types given with `--types`
//! (comma-separated, one per argument): `int`/`short`/`byte` (and boxes) → int, `long` → long,
//! `float`/`double` → double, `boolean`, `char`/`java.lang.String` → string,
//! `java.util.Date` → date (milliseconds), `java.math.BigDecimal` → decimal (string or
//! number), `X[]` → a typed array, `java.util.List`/`Set`/`Collection` → list,
//! `java.util.Map` → map, and any other class → an object of that class from a JSON object
//! (its `class` entry, if any, overrides the class). Values inside lists, maps and objects,
//! and arguments of type `java.lang.Object`, are mapped by their JSON kind: integers → int
//! or long, other numbers → double, objects → maps, or objects of the class named by their
//! `class` entry.
//!
//! The result is printed as JSON on stdout (objects with a `class` entry, dates as
//! milliseconds, binaries as base64). A Java exception is printed as
//! `{"exception": class, "message": ...}` on stdout with exit status 1; any other failure
//! (connection, timeout, status such as SERVICE_NOT_FOUND) is described on stderr with exit
//! status 2; bad usage exits with 64.

use std::process::ExitCode;
use std::sync::Arc;
use std::time::Duration;

use dubbo_codec::client::{CallError, Client, ClientConfig};
use dubbo_codec::cluster::{ClusterClient, ClusterConfig, ClusterError};
use dubbo_codec::instance_metadata::MetadataServiceSource;
use dubbo_codec::{JavaException, Request};
use dubbo_registry::ServiceUrl;
use hessian2::value::{java, Object, Stream, Value};
use serde_json::{Map as JsonMap, Number, Value as Json};

const USAGE: &str =
    "usage: dubbo-call HOST:PORT SERVICE METHOD [--types T1,T2,...] [--args JSON_ARRAY] \
[--version V] [--group G] [--attach K=V]... [--timeout MS] [--generic]
       dubbo-call --registry zookeeper://HOST:PORT SERVICE METHOD [options as above]
       dubbo-call --registry zookeeper://HOST:PORT --list [SERVICE]";

struct Options {
    /// The provider's address; empty with `registry`.
    addr: String,
    registry: Option<String>,
    /// `--list`: the services of the registry (`Some(None)`) or one's providers.
    list: Option<Option<String>>,
    service: String,
    method: String,
    types: Vec<String>,
    args: Vec<Json>,
    version: Option<String>,
    group: Option<String>,
    attachments: Vec<(String, String)>,
    timeout: Duration,
    generic: bool,
}

fn parse_args(mut argv: impl Iterator<Item = String>) -> Result<Options, String> {
    let mut positional = Vec::new();
    let mut types = Vec::new();
    let mut args = Vec::new();
    let mut version = None;
    let mut group = None;
    let mut attachments = Vec::new();
    let mut timeout = Duration::from_secs(3);
    let mut generic = false;
    let (mut registry, mut list) = (None, false);
    while let Some(a) = argv.next() {
        let mut value = |name: &str| argv.next().ok_or_else(|| format!("{name} needs a value"));
        match a.as_str() {
            "--types" => {
                types = value("--types")?
                    .split(',')
                    .map(|t| t.trim().to_owned())
                    .filter(|t| !t.is_empty())
                    .collect()
            }
            "--args" => {
                let text = value("--args")?;
                match serde_json::from_str::<Json>(&text) {
                    Ok(Json::Array(a)) => args = a,
                    Ok(_) => return Err("--args must be a JSON array".into()),
                    Err(e) => return Err(format!("--args is not JSON: {e}")),
                }
            }
            "--version" => version = Some(value("--version")?),
            "--group" => group = Some(value("--group")?),
            "--attach" => {
                let kv = value("--attach")?;
                let (k, v) = kv
                    .split_once('=')
                    .ok_or_else(|| format!("--attach {kv}: expected K=V"))?;
                attachments.push((k.to_owned(), v.to_owned()));
            }
            "--timeout" => {
                let t = value("--timeout")?;
                let ms: u64 = t
                    .parse()
                    .map_err(|_| format!("--timeout {t}: not a number of milliseconds"))?;
                timeout = Duration::from_millis(ms.max(1));
            }
            "--generic" => generic = true,
            "--registry" => registry = Some(value("--registry")?),
            "--list" => list = true,
            "-h" | "--help" => return Err(String::new()),
            flag if flag.starts_with("--") => return Err(format!("unknown option {flag}")),
            _ => positional.push(a),
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
        service,
        method,
        types,
        args,
        version,
        group,
        attachments,
        timeout,
        generic,
    })
}

/// JSON to Hessian for a declared Java type.
fn to_hessian(ty: &str, v: &Json) -> Result<Value, String> {
    if v.is_null() {
        return Ok(Value::Null);
    }
    let bad = || format!("{v} is not a {ty}");
    Ok(match ty {
        "int" | "short" | "byte" | "java.lang.Integer" | "java.lang.Short" | "java.lang.Byte" => {
            let n = v.as_i64().ok_or_else(bad)?;
            Value::Int(i32::try_from(n).map_err(|_| format!("{n} does not fit a {ty}"))?)
        }
        "long" | "java.lang.Long" => Value::Long(v.as_i64().ok_or_else(bad)?),
        "double" | "float" | "java.lang.Double" | "java.lang.Float" => {
            Value::Double(v.as_f64().ok_or_else(bad)?)
        }
        "boolean" | "java.lang.Boolean" => Value::Bool(v.as_bool().ok_or_else(bad)?),
        "char" | "java.lang.Character" | "java.lang.String" => match v {
            Json::String(s) => Value::String(s.clone()),
            other => Value::String(other.to_string()),
        },
        "java.util.Date" => Value::Date(v.as_i64().ok_or_else(bad)?),
        "java.math.BigDecimal" => match v {
            Json::String(s) => java::big_decimal(s),
            Json::Number(n) => java::big_decimal(&n.to_string()),
            _ => return Err(bad()),
        },
        "java.lang.Object" => untyped(v),
        "java.util.List"
        | "java.util.ArrayList"
        | "java.util.Collection"
        | "java.util.Set"
        | "java.util.HashSet" => {
            let items = v.as_array().ok_or_else(bad)?.iter().map(untyped).collect();
            let list_ty = if ty.ends_with("Set") {
                "java.util.HashSet"
            } else {
                "java.util.ArrayList"
            };
            Value::typed_list(list_ty, items)
        }
        "java.util.Map" | "java.util.HashMap" => match v {
            Json::Object(m) => Value::untyped_map(
                m.iter()
                    .map(|(k, v)| (Value::from(k.as_str()), untyped(v)))
                    .collect(),
            ),
            _ => return Err(bad()),
        },
        array if array.ends_with("[]") => {
            let elem = &array[..array.len() - 2];
            let items = v
                .as_array()
                .ok_or_else(bad)?
                .iter()
                .map(|i| to_hessian(elem, i))
                .collect::<Result<Vec<_>, _>>()?;
            Value::typed_list(&array_type(elem), items)
        }
        class => match v {
            Json::Object(m) => object(class, m),
            _ => return Err(bad()),
        },
    })
}

/// Hessian's name of an array type (`[int`, `[string`, `[com.example.User`).
fn array_type(elem: &str) -> String {
    let short = match elem {
        "int" => "int",
        "long" => "long",
        "short" => "short",
        "byte" => "byte",
        "boolean" => "boolean",
        "double" => "double",
        "float" => "float",
        "char" => "char",
        "java.lang.String" => "string",
        "java.lang.Object" => "object",
        other if other.ends_with("[]") => {
            return format!("[{}", array_type(&other[..other.len() - 2]))
        }
        other => other,
    };
    format!("[{short}")
}

fn object(class: &str, m: &JsonMap<String, Json>) -> Value {
    let class = m.get("class").and_then(Json::as_str).unwrap_or(class);
    let fields: Vec<(&str, Value)> = m
        .iter()
        .filter(|(k, _)| k.as_str() != "class")
        .map(|(k, v)| (k.as_str(), untyped(v)))
        .collect();
    Value::Object(Object::new(class, fields))
}

/// JSON to Hessian by the JSON kind alone.
fn untyped(v: &Json) -> Value {
    match v {
        Json::Null => Value::Null,
        Json::Bool(b) => Value::Bool(*b),
        Json::Number(n) => match n.as_i64() {
            Some(i) => i32::try_from(i).map_or(Value::Long(i), Value::Int),
            None => Value::Double(n.as_f64().unwrap_or(f64::NAN)),
        },
        Json::String(s) => Value::String(s.clone()),
        Json::Array(a) => Value::typed_list("java.util.ArrayList", a.iter().map(untyped).collect()),
        Json::Object(m) => match m.get("class").and_then(Json::as_str) {
            Some(class) => object(class, m),
            None => Value::untyped_map(
                m.iter()
                    .map(|(k, v)| (Value::from(k.as_str()), untyped(v)))
                    .collect(),
            ),
        },
    }
}

/// Hessian to JSON. References are followed (at most 64 levels deep; deeper or circular
/// ones print as `{"$ref": n}`).
fn to_json(v: &Value, stream: &Stream, depth: usize) -> Json {
    match v {
        Value::Null => Json::Null,
        Value::Bool(b) => Json::Bool(*b),
        Value::Int(i) => Json::from(*i),
        Value::Long(l) => Json::from(*l),
        Value::Double(d) => {
            Number::from_f64(*d).map_or_else(|| Json::String(d.to_string()), Json::Number)
        }
        Value::Date(ms) => Json::from(*ms),
        Value::String(s) => Json::String(s.clone()),
        // JSON text cannot hold a lone surrogate: U+FFFD in its place.
        Value::Utf16(units) => Json::String(String::from_utf16_lossy(units)),
        Value::Binary(b) => Json::String(base64(b)),
        Value::List(l) => Json::Array(
            l.items
                .iter()
                .map(|i| to_json(i, stream, depth + 1))
                .collect(),
        ),
        Value::Map(m) => {
            let mut out = JsonMap::new();
            for (k, v) in &m.entries {
                let key = match k {
                    Value::String(s) => s.clone(),
                    other => match to_json(other, stream, depth + 1) {
                        Json::String(s) => s,
                        j => j.to_string(),
                    },
                };
                out.insert(key, to_json(v, stream, depth + 1));
            }
            Json::Object(out)
        }
        Value::Object(o) => {
            if let Some(d) = o.as_big_decimal() {
                return Json::String(d.to_owned());
            }
            let mut out = JsonMap::new();
            out.insert("class".into(), Json::String(o.class.to_string()));
            for (k, v) in o.iter() {
                out.insert(k.to_owned(), to_json(v, stream, depth + 1));
            }
            Json::Object(out)
        }
        Value::Ref(n) => match stream.resolve(*n) {
            Some(target) if depth < 64 => to_json(target, stream, depth + 1),
            _ => serde_json::json!({ "$ref": n }),
        },
    }
}

fn base64(data: &[u8]) -> String {
    const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::with_capacity(data.len().div_ceil(3) * 4);
    for chunk in data.chunks(3) {
        let b = [
            chunk[0],
            *chunk.get(1).unwrap_or(&0),
            *chunk.get(2).unwrap_or(&0),
        ];
        let n = (u32::from(b[0]) << 16) | (u32::from(b[1]) << 8) | u32::from(b[2]);
        for i in 0..4 {
            if i <= chunk.len() {
                out.push(ALPHABET[((n >> (18 - 6 * i)) & 63) as usize] as char);
            } else {
                out.push('=');
            }
        }
    }
    out
}

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
    b = b.timeout(o.timeout);
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
    let config = ClientConfig {
        timeout: o.timeout,
        connect_timeout: o.timeout.max(Duration::from_secs(1)),
        ..ClientConfig::default()
    };
    let answer = match &o.registry {
        Some(registry) => registry_call(registry, &o, &req, config).await,
        None => match Client::connect_with(o.addr.clone(), config).await {
            Ok(client) => client.call_value(&req).await.map_err(Failure::from),
            Err(e) => Err(e.to_string().into()),
        },
    };
    match answer {
        Ok(v) => {
            let stream = Stream { values: vec![v] };
            let json = to_json(&stream.values[0], &stream, 0);
            println!(
                "{}",
                serde_json::to_string_pretty(&json).unwrap_or_default()
            );
            ExitCode::SUCCESS
        }
        Err(Failure::Exception(e)) => {
            let json = serde_json::json!({ "exception": e.class, "message": e.message });
            println!(
                "{}",
                serde_json::to_string_pretty(&json).unwrap_or_default()
            );
            ExitCode::from(1)
        }
        Err(Failure::Other(e)) => {
            eprintln!("dubbo-call: {e}");
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
    let cluster = b
        .config(ClusterConfig {
            client,
            ..ClusterConfig::default()
        })
        .build()
        .await
        .map_err(|e| e.to_string())?;
    cluster.call_value(req).await.map_err(|e| match e {
        ClusterError::Call { source, .. } => Failure::from(source),
        other => Failure::Other(other.to_string()),
    })
}

/// How long `--list` waits for one service's providers (its instances' metadata included).
const LIST_TIMEOUT: Duration = Duration::from_secs(15);

/// `--list`: the registry's services, or one service's providers.
async fn list(registry: &str, service: Option<&str>) -> Result<(), String> {
    let registry = dubbo_registry::connect(registry)
        .await
        .map_err(|e| e.to_string())?;
    let services = match service {
        Some(s) => vec![s.to_owned()],
        None => registry.services().await.map_err(|e| e.to_string())?,
    };
    for s in services {
        // What a client would find: application instances first, else interface level.
        let mut sub = registry.subscribe_with_instances(&s, Arc::new(MetadataServiceSource));
        let providers = tokio::time::timeout(LIST_TIMEOUT, sub.next())
            .await
            .map_err(|_| format!("no provider list of {s} within {LIST_TIMEOUT:?}"))?
            .map_err(|e| e.to_string())?;
        let set = |f: fn(&ServiceUrl) -> String| {
            let mut v: Vec<String> = providers.iter().map(f).collect();
            v.sort();
            v.dedup();
            v.join(",")
        };
        if service.is_none() {
            println!(
                "{s}\tproviders={}\tversions={}\tgroups={}",
                providers.len(),
                set(|u| u.version().into_owned()),
                set(|u| u.group().into_owned())
            );
            continue;
        }
        println!("{s}\tproviders={}", providers.len());
        for u in providers.iter() {
            let p = |k: &str| u.param(k).unwrap_or_default().into_owned();
            println!(
                "  {}://{}:{}\tversion={}\tgroup={}\tapplication={}\trelease={}\tdubbo={}",
                u.protocol(),
                u.host(),
                u.port().unwrap_or(0),
                u.version(),
                u.group(),
                p("application"),
                p("release"),
                p("dubbo")
            );
            println!("    methods: {}", u.methods().join(", "));
        }
    }
    Ok(())
}

fn main() -> ExitCode {
    let options = match parse_args(std::env::args().skip(1)) {
        Ok(o) => o,
        Err(e) => {
            if !e.is_empty() {
                eprintln!("dubbo-call: {e}");
            }
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn maps_json_by_java_type() {
        assert_eq!(
            to_hessian("int", &serde_json::json!(3)).unwrap(),
            Value::Int(3)
        );
        assert!(to_hessian("int", &serde_json::json!(1u64 << 40)).is_err());
        assert_eq!(
            to_hessian("long", &serde_json::json!(3)).unwrap(),
            Value::Long(3)
        );
        assert_eq!(
            to_hessian("int[]", &serde_json::json!([1, 2])).unwrap(),
            Value::typed_list("[int", vec![Value::Int(1), Value::Int(2)])
        );
        assert_eq!(
            to_hessian("java.lang.String[][]", &serde_json::json!([["a"]])).unwrap(),
            Value::typed_list(
                "[[string",
                vec![Value::typed_list("[string", vec![Value::from("a")])]
            )
        );
        let user = to_hessian(
            "com.example.User",
            &serde_json::json!({"id": 1, "name": "n"}),
        )
        .unwrap();
        assert_eq!(user.as_object().unwrap().class.as_ref(), "com.example.User");
        assert!(to_hessian("com.example.User", &serde_json::json!(1)).is_err());
        assert_eq!(
            to_hessian("java.lang.Object", &serde_json::json!(null)).unwrap(),
            Value::Null
        );
        assert_eq!(base64(b"hello"), "aGVsbG8=");
        assert_eq!(base64(b"hi!"), "aGkh");
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
}
