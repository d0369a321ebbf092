//! `--list`: what a registry offers. Providers are found as a client finds them: Dubbo 3
//! application instances (their metadata asked from their MetadataService), else the
//! interface-level registrations.

use std::sync::Arc;
use std::time::Duration;

use dubbo_registry::ServiceUrl;
use dubbo_rpc::instance_metadata::MetadataServiceSource;

/// How long `--list` (and `--describe`) waits for one service's providers (its instances' metadata included).
pub const LIST_TIMEOUT: Duration = Duration::from_secs(15);

/// `--list`: the registry's services, or one service's providers.
pub async fn list(registry: &str, service: Option<&str>) -> Result<(), String> {
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
