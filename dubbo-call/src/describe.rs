//! `--describe`: a service's methods with their Java parameter and return types, as the
//! registry's metadata report or the provider's MetadataService has them, else the method
//! names of the provider URLs (types unknown).

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;

use dubbo_registry::definition::{DefinitionKey, ServiceDefinition, TypeDefinition};
use dubbo_rpc::client::{Client, ClientConfig};
use dubbo_rpc::instance_metadata::{self, MetadataClient, MetadataServiceSource};
use dubbo_rpc::triple_client::Client as TripleClient;
use serde_json::{json, Value as Json};

use crate::list::LIST_TIMEOUT;
use crate::options::Output;

/// What to describe: `SERVICE [METHOD]` of `--version`/`--group` when given.
pub struct Target<'a> {
    pub service: &'a str,
    pub method: Option<&'a str>,
    pub version: Option<&'a str>,
    pub group: Option<&'a str>,
}

/// The providers of one version, group and application, and what is known of their methods.
struct Description {
    key: DefinitionKey,
    /// The providers' Dubbo release (`release` of their URLs), when they say.
    release: String,
    addresses: BTreeSet<String>,
    /// Where the types came from, `None` when only the URLs' `methods` are known.
    source: Option<String>,
    methods: Vec<Method>,
    types: Vec<TypeDefinition>,
}

struct Method {
    name: String,
    /// `None`: unknown (no definition published).
    signature: Option<(Vec<String>, String)>,
}

impl Description {
    fn from_definition(key: DefinitionKey, source: String, d: ServiceDefinition) -> Self {
        Description {
            key,
            release: d.parameters.get("release").cloned().unwrap_or_default(),
            addresses: BTreeSet::new(),
            source: Some(source),
            methods: d
                .methods
                .into_iter()
                .map(|m| Method {
                    name: m.name,
                    signature: Some((m.parameter_types, m.return_type)),
                })
                .collect(),
            types: d.types,
        }
    }

    fn from_names<'a>(key: DefinitionKey, names: impl IntoIterator<Item = &'a str>) -> Self {
        let names: BTreeSet<&str> = names.into_iter().filter(|n| !n.is_empty()).collect();
        Description {
            key,
            release: String::new(),
            addresses: BTreeSet::new(),
            source: None,
            methods: names
                .into_iter()
                .map(|n| Method {
                    name: n.to_owned(),
                    signature: None,
                })
                .collect(),
            types: Vec::new(),
        }
    }

    /// Keeps `method` only (all its overloads) and the types its signature reaches.
    fn only(&mut self, method: Option<&str>) {
        if let Some(m) = method {
            self.methods.retain(|x| x.name == m);
        }
        let mut wanted: Vec<&str> = self
            .methods
            .iter()
            .filter_map(|m| m.signature.as_ref())
            .flat_map(|(params, ret)| params.iter().chain([ret]).map(String::as_str))
            .collect();
        let mut reached = BTreeSet::new();
        while let Some(t) = wanted.pop() {
            if !reached.insert(t.to_owned()) {
                continue;
            }
            if let Some(d) = self.types.iter().find(|d| d.type_name == t && !is_jdk(t)) {
                wanted.extend(d.items.iter().map(String::as_str));
                wanted.extend(d.properties.values().map(String::as_str));
            }
        }
        // Classes and enums only: a type without fields or constants says nothing its name
        // does not; nor do the JDK's private fields (a `LocalDate`'s, a `UUID`'s), which
        // Dubbo 2.7 publishes too: callers give those values as their text.
        self.types.retain(|t| {
            reached.contains(&t.type_name)
                && !is_jdk(&t.type_name)
                && !(t.properties.is_empty() && t.enums.is_empty())
        });
    }

    fn to_json(&self) -> Json {
        let methods: Vec<Json> = self
            .methods
            .iter()
            .map(|m| match &m.signature {
                Some((params, ret)) => {
                    json!({"name": m.name, "parameterTypes": params, "returnType": ret})
                }
                None => json!({"name": m.name, "parameterTypes": null, "returnType": null}),
            })
            .collect();
        let types: Vec<Json> = self
            .types
            .iter()
            .map(|t| json!({"type": t.type_name, "properties": t.properties, "enums": t.enums}))
            .collect();
        json!({
            "version": self.key.version,
            "group": self.key.group,
            "application": self.key.application,
            "release": self.release,
            "providers": self.addresses,
            "definition": self.source,
            "methods": methods,
            "types": types,
        })
    }

    fn to_text(&self, service: &str) -> String {
        let k = &self.key;
        let mut out = format!(
            "{service}\tversion={}\tgroup={}\tapplication={}\trelease={}\n",
            k.version, k.group, k.application, self.release
        );
        if !self.addresses.is_empty() {
            let addrs: Vec<&str> = self.addresses.iter().map(String::as_str).collect();
            let _ = writeln!(out, "  providers: {}", addrs.join(", "));
        }
        match &self.source {
            Some(s) => {
                let _ = writeln!(out, "  definition: {s}");
            }
            None => out.push_str(
                "  definition: none published (method names only; parameter types unknown)\n",
            ),
        }
        let unknown = self.methods.iter().any(|m| m.signature.is_none());
        if self.source.is_some() && unknown {
            out.push_str("  (methods marked ? have no published signature)\n");
        }
        for m in &self.methods {
            let _ = match &m.signature {
                Some((params, ret)) => writeln!(out, "  {ret} {}({})", m.name, params.join(", ")),
                None => writeln!(out, "  ? {}(?)", m.name),
            };
        }
        for t in &self.types {
            let kind = if t.enums.is_empty() { "class" } else { "enum" };
            let _ = writeln!(out, "  {kind} {} {{", t.type_name);
            if !t.enums.is_empty() {
                let _ = writeln!(out, "    {};", t.enums.join(", "));
            }
            for (field, ty) in &t.properties {
                let _ = writeln!(out, "    {ty} {field};");
            }
            out.push_str("  }\n");
        }
        out
    }
}

/// A class of the JDK (`java.time.LocalDate`, `javax.money.MonetaryAmount`).
fn is_jdk(type_name: &str) -> bool {
    type_name.starts_with("java.") || type_name.starts_with("javax.")
}

/// Prints the descriptions; an error when none has the method asked for.
fn print(target: &Target<'_>, mut found: Vec<Description>, output: Output) -> Result<(), String> {
    for d in &mut found {
        d.only(target.method);
    }
    found.retain(|d| !d.methods.is_empty());
    if found.is_empty() {
        return Err(match target.method {
            Some(m) => format!("no provider of {} has a method {m}", target.service),
            None => format!("no provider of {} names any method", target.service),
        });
    }
    match output {
        Output::Json => {
            let json = json!({
                "service": target.service,
                "descriptions": found.iter().map(Description::to_json).collect::<Vec<_>>(),
            });
            println!("{json}");
        }
        _ => {
            for d in &found {
                print!("{}", d.to_text(target.service));
            }
        }
    }
    Ok(())
}

/// The providers of one [`DefinitionKey`] in the registry.
#[derive(Default)]
struct Found {
    addresses: BTreeSet<String>,
    methods: BTreeSet<String>,
    release: String,
}

/// `--registry URL --describe`: the providers the registry lists, grouped by version, group
/// and application, each with the definition its application published in the registry's
/// metadata report, else the method names of its URLs.
pub async fn describe_registry(
    registry: &str,
    target: &Target<'_>,
    output: Output,
) -> Result<(), String> {
    let registry = dubbo_registry::connect(registry)
        .await
        .map_err(|e| e.to_string())?;
    let mut sub = registry
        .subscribe_with_instances(target.service, std::sync::Arc::new(MetadataServiceSource));
    let providers = tokio::time::timeout(LIST_TIMEOUT, sub.next())
        .await
        .map_err(|_| {
            format!(
                "no provider list of {} within {LIST_TIMEOUT:?}",
                target.service
            )
        })?
        .map_err(|e| e.to_string())?;
    let mut groups: BTreeMap<DefinitionKey, Found> = BTreeMap::new();
    for u in providers.iter() {
        let (version, group) = (u.version(), u.group());
        if target.version.is_some_and(|v| v != version) || target.group.is_some_and(|g| g != group)
        {
            continue;
        }
        let key = DefinitionKey {
            interface: target.service.to_owned(),
            version: version.into_owned(),
            group: group.into_owned(),
            application: u.param("application").unwrap_or_default().into_owned(),
        };
        let found = groups.entry(key).or_default();
        found
            .addresses
            .insert(format!("{}:{}", u.host(), u.port().unwrap_or(0)));
        found.methods.extend(u.methods());
        if let Some(r) = u.param("release") {
            found.release = r.into_owned();
        }
    }
    if groups.is_empty() {
        return Err(format!("no provider of {} in the registry", target.service));
    }
    let mut found = Vec::new();
    for (key, found_here) in groups {
        let published = registry
            .service_definition(&key)
            .await
            .map_err(|e| e.to_string())?;
        let mut d = match published {
            Some(def) => {
                let mut d =
                    Description::from_definition(key, "the registry's metadata report".into(), def);
                // A method the URLs name but the definition lacks (one a Rust provider declared
                // no signature of): by name.
                let missing: Vec<&String> = found_here
                    .methods
                    .iter()
                    .filter(|m| !m.is_empty() && !d.methods.iter().any(|x| &x.name == *m))
                    .collect();
                d.methods.extend(missing.into_iter().map(|m| Method {
                    name: m.clone(),
                    signature: None,
                }));
                d
            }
            None => Description::from_names(key, found_here.methods.iter().map(String::as_str)),
        };
        d.addresses = found_here.addresses;
        d.release = found_here.release;
        found.push(d);
    }
    print(target, found, output)
}

/// `HOST:PORT --describe --app APP`: what the MetadataService of application `app` at `addr`
/// (over Triple with `triple`: `tri://HOST:PORT`, a Dubbo 3.3 application whose protocol is
/// Triple) says: the service definition (a 2.7 MetadataService), else the method names of every
/// matching service its metadata lists (3.x).
pub async fn describe_provider(
    addr: &str,
    triple: bool,
    app: &str,
    target: &Target<'_>,
    config: ClientConfig,
    output: Output,
) -> Result<(), String> {
    let answer = if triple {
        let client = TripleClient::connect(addr)
            .await
            .map_err(|e| e.to_string())?;
        describe_through(MetadataClient::Triple(&client), addr, app, target).await
    } else {
        let client = Client::connect_with(addr.to_owned(), config)
            .await
            .map_err(|e| e.to_string())?;
        let answer = describe_through(MetadataClient::Dubbo(&client), addr, app, target).await;
        client.close().await;
        answer
    };
    print(target, answer?, output)
}

async fn describe_through(
    client: MetadataClient<'_>,
    addr: &str,
    app: &str,
    target: &Target<'_>,
) -> Result<Vec<Description>, String> {
    let not_served = |e| format!("the MetadataService of application {app} at {addr}: {e}");
    let (version, group) = (target.version.unwrap_or(""), target.group.unwrap_or(""));
    let key = DefinitionKey {
        interface: target.service.to_owned(),
        version: version.to_owned(),
        group: group.to_owned(),
        application: app.to_owned(),
    };
    let json = instance_metadata::service_definition(client, app, target.service, version, group)
        .await
        .map_err(not_served)?;
    if let Some(json) = json {
        let def = ServiceDefinition::from_json(json.as_bytes()).map_err(|e| e.to_string())?;
        let source = format!("MetadataService of {app} at {addr}");
        return Ok(vec![Description::from_definition(key, source, def)]);
    }
    let infos = instance_metadata::metadata_infos(client, app)
        .await
        .map_err(not_served)?;
    let mut by_key: BTreeMap<DefinitionKey, Found> = BTreeMap::new();
    for s in infos.iter().flat_map(|i| i.services.values()) {
        if s.name != target.service
            || target.version.is_some_and(|v| v != s.version)
            || target.group.is_some_and(|g| g != s.group)
        {
            continue;
        }
        let key = DefinitionKey {
            version: s.version.clone(),
            group: s.group.clone(),
            ..key.clone()
        };
        let found = by_key.entry(key).or_default();
        let methods = s.params.get("methods").map_or("", String::as_str);
        found.methods.extend(methods.split(',').map(str::to_owned));
        if let Some(r) = s.params.get("release") {
            found.release.clone_from(r);
        }
    }
    if by_key.is_empty() {
        return Err(format!(
            "the MetadataService of application {app} at {addr} lists no service {}",
            target.service
        ));
    }
    Ok(by_key
        .into_iter()
        .map(|(key, found)| Description {
            release: found.release,
            ..Description::from_names(key, found.methods.iter().map(String::as_str))
        })
        .collect())
}
