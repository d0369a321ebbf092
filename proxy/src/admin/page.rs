//! `GET /`: the operator's status page, one HTML document made from the same state that
//! `/metrics`, `/healthz` and `/config` read (the configuration snapshot, the metrics
//! registry, the endpoints' shared health).
//!
//! It is meant for a person with a browser: no script, no external asset (the style is
//! inline), a `<meta http-equiv="refresh">` to stay live, and every name that comes from the
//! configuration, a registry or a caller HTML-escaped, since a provider URL or a route name can
//! hold anything.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::sync::atomic::Ordering::Relaxed;
use std::time::{Duration, Instant};

use dubbo_codec::Status;

use crate::admin::rates::{Key, Rates};
use crate::admin::AdminState;
use crate::config::{Config, LbPolicy, Route};
use crate::core::metrics::{Registry, Stats, UNROUTED};
use crate::core::shared::SharedEndpoint;

/// Seconds between the page's own reloads.
pub const REFRESH_S: u32 = 2;

const STYLE: &str = "body{font:14px/1.4 system-ui,sans-serif;margin:1.5em;color:#222}\
h1{font-size:1.4em;margin:0 0 .3em}h2{font-size:1.1em;margin:1.4em 0 .4em}\
table{border-collapse:collapse;margin-bottom:.5em}th,td{border:1px solid #ccc;padding:.25em .6em;text-align:left}\
th{background:#f3f3f3}td.n{text-align:right;font-variant-numeric:tabular-nums}\
.ok{color:#0a6b0a;font-weight:600}.bad{color:#b00020;font-weight:600}.warn{color:#8a5a00;font-weight:600}\
.muted{color:#777}code{font-size:.95em}";

/// Escapes text for HTML element content and quoted attribute values.
pub fn escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

/// The page, as of `now`. `health` is what `/healthz` answers now (status and text).
pub fn render(state: &AdminState, rates: &Rates, health: (u16, &str), now: Instant) -> String {
    let shared = &state.shared;
    let snap = shared.snapshot();
    let metrics = &shared.metrics;
    let routes = metrics.routes();
    let clusters = metrics.clusters();
    let totals: BTreeMap<Key, u64> = routes
        .iter()
        .map(|(n, s)| (("route", n.clone()), s.requests()))
        .chain(
            clusters
                .iter()
                .map(|(n, s)| (("cluster", n.clone()), s.requests())),
        )
        .collect();
    let per_s = rates.observe(now, totals);
    let rate = |kind: &'static str, name: &str| match &per_s {
        Some((r, _)) => format!("{:.1}", r.get(&(kind, name.to_owned())).unwrap_or(&0.0)),
        None => "–".to_owned(),
    };

    let mut out = String::with_capacity(16 * 1024);
    let _ = write!(
        out,
        "<!DOCTYPE html><html lang=\"en\"><head><meta charset=\"utf-8\">\
         <meta http-equiv=\"refresh\" content=\"{REFRESH_S}\">\
         <meta name=\"viewport\" content=\"width=device-width\">\
         <title>dubbo-proxy status</title><style>{STYLE}</style></head><body>"
    );
    let (code, text) = health;
    let class = if code == 200 { "ok" } else { "bad" };
    let _ = write!(
        out,
        "<h1>dubbo-proxy</h1><p>Health: <span id=\"health\" class=\"{class}\">{}</span> \
         · config generation <b id=\"generation\">{}</b> · engine {} · {} worker(s) \
         · per-call log {}</p>",
        escape(text.trim()),
        shared.generation(),
        escape(&format!("{:?}", snap.config.engine).to_lowercase()),
        shared.workers,
        if shared.downgraded() {
            "off (downgraded)"
        } else {
            "as configured"
        },
    );
    let _ = write!(
        out,
        "<p>Caller connections {} open, {} accepted · paused {} · buffered {} bytes \
         · reloads {} ({} refused) · protocol errors {}</p>",
        metrics.downstream_connections.load(Relaxed),
        metrics.downstream_accepted.load(Relaxed),
        metrics.paused_connections.load(Relaxed),
        metrics.buffered_bytes.load(Relaxed),
        metrics.reloads.load(Relaxed),
        metrics.reload_failures.load(Relaxed),
        metrics.protocol_errors.load(Relaxed),
    );

    listeners(&mut out, state, &snap.config);

    out.push_str("<h2>Routes</h2><table id=\"routes\"><tr><th>Route</th><th>Matches</th><th>Cluster</th><th>Calls</th><th>Calls/s</th><th>Errors</th><th>p99</th><th>Denied / limited</th></tr>");
    for (i, r) in snap.config.routes.iter().enumerate() {
        let name = snap.config.route_name(i);
        let stats = routes.get(&name);
        let _ = write!(
            out,
            "<tr><td>{}</td><td>{}</td><td>{}</td>{}<td class=\"n\">{}</td>{}{}</tr>",
            escape(&name),
            matches(r),
            escape(&r.cluster),
            calls(stats),
            rate("route", &name),
            quality(stats),
            refused(metrics, r, &name),
        );
    }
    if let Some(stats) = routes.get(UNROUTED).filter(|s| s.requests() > 0) {
        let _ = write!(
            out,
            "<tr><td class=\"muted\">(no route)</td><td class=\"muted\">calls that matched none</td><td></td>{}<td class=\"n\">{}</td>{}<td></td></tr>",
            calls(Some(stats)),
            rate("route", UNROUTED),
            quality(Some(stats)),
        );
    }
    out.push_str("</table>");

    out.push_str("<h2>Clusters</h2><table id=\"clusters\"><tr><th>Cluster</th><th>Balancing</th><th>Endpoints</th><th>In flight</th><th>Calls</th><th>Calls/s</th><th>Errors</th><th>p99</th></tr>");
    for (name, c) in &snap.config.clusters {
        let stats = clusters.get(name);
        let states = snap.endpoints.get(name).map(Vec::as_slice).unwrap_or(&[]);
        let healthy = states.iter().filter(|e| !e.health.ejected_at(now)).count();
        let _ = write!(
            out,
            "<tr><td>{}</td><td>{}</td><td class=\"n\">{healthy} of {} healthy</td><td class=\"n\">{}</td>{}<td class=\"n\">{}</td>{}</tr>",
            escape(name),
            lb_name(c.lb),
            states.len(),
            in_flight(c.lb, states.iter().map(|e| e.as_ref())),
            calls(stats),
            rate("cluster", name),
            quality(stats),
        );
    }
    out.push_str("</table>");

    endpoints(&mut out, state, &snap.config, &snap.endpoints, now);
    discovery(&mut out, state, &snap.config);

    let _ = writeln!(
        out,
        "<p class=\"muted\">Calls/s over the last {}; p99 is the upper bound of its latency \
         bucket; errors are responses other than OK (the proxy's own included). \
         In flight is counted for <code>least_request</code> clusters only (the others keep \
         no shared count on the call path). Refreshes every {REFRESH_S} s. \
         Also: <a href=\"/metrics\">/metrics</a> · <a href=\"/healthz\">/healthz</a> · \
         <a href=\"/config\">/config</a> · <a href=\"/metadata\">/metadata</a></p></body></html>",
        match &per_s {
            Some((_, span)) => format!("{:.1} s", span.as_secs_f64()),
            None => "views (none yet: the next refresh shows them)".to_owned(),
        }
    );
    out
}

fn listeners(out: &mut String, state: &AdminState, config: &Config) {
    out.push_str("<h2>Listeners</h2><table id=\"listeners\"><tr><th>Listener</th><th>Bound to</th><th>Configured</th><th>Open</th><th>Limit</th><th>Rejected</th></tr>");
    let metrics = &state.shared.metrics;
    for l in metrics.listeners.iter() {
        let conf = config.listeners.iter().find(|c| c.name == l.name);
        let _ = write!(
            out,
            "<tr><td>{}</td><td>{}</td><td>{}</td><td class=\"n\">{}</td><td class=\"n\">{}</td><td class=\"n\">{}</td></tr>",
            escape(&l.name),
            l.bound.get().map(|a| a.to_string()).unwrap_or_default(),
            conf.map(|c| escape(&c.address)).unwrap_or_default(),
            l.open.load(Relaxed),
            conf.map(|c| c.max_connections.to_string()).unwrap_or_default(),
            l.rejected.load(Relaxed),
        );
    }
    out.push_str("</table>");
    let fds = &metrics.fds;
    if fds.limit() != usize::MAX {
        let _ = write!(
            out,
            "<p id=\"fd-budget\">Caller connections of all listeners: {} of the {} the file \
             descriptors allow (<code>RLIMIT_NOFILE</code> less <code>limits.fd_reserve</code>).</p>",
            fds.open(),
            fds.limit()
        );
    }
}

fn endpoints(
    out: &mut String,
    state: &AdminState,
    config: &Config,
    states: &BTreeMap<String, Vec<std::sync::Arc<SharedEndpoint>>>,
    now: Instant,
) {
    let metrics = &state.shared.metrics;
    let connections = metrics.endpoints();
    out.push_str("<h2>Endpoints</h2><table id=\"endpoints\"><tr><th>Cluster</th><th>Endpoint</th><th>Weight</th><th>Health</th><th>Ejections</th><th>Probes ok / failed</th><th>Connections</th><th>Backed up</th><th>In flight</th></tr>");
    for (name, c) in &config.clusters {
        let shared = states.get(name).map(Vec::as_slice).unwrap_or(&[]);
        for (e, s) in c.endpoints.iter().zip(shared) {
            let (class, health) = if !s.health.ejected_at(now) {
                ("ok", "healthy")
            } else if s.health.is_held() {
                ("bad", "ejected, probing")
            } else {
                ("bad", "ejected")
            };
            let open = connections
                .get(&(name.clone(), e.address.clone()))
                .map_or(0, |g| g.load(Relaxed));
            let h = &s.metrics;
            let _ = write!(
                out,
                "<tr><td>{}</td><td>{}</td><td class=\"n\">{}</td><td class=\"{class}\">{health}</td><td class=\"n\">{}</td><td class=\"n\">{} / {}</td><td class=\"n\">{open}</td><td class=\"n\">{}</td><td class=\"n\">{}</td></tr>",
                escape(name),
                escape(&e.address),
                e.weight,
                h.ejections.load(Relaxed),
                h.probes_ok.load(Relaxed),
                h.probes_failed.load(Relaxed),
                h.backed_up.load(Relaxed).max(0),
                in_flight(c.lb, std::iter::once(s.as_ref())),
            );
        }
    }
    out.push_str("</table>");
}

fn discovery(out: &mut String, state: &AdminState, config: &Config) {
    let shared = &state.shared;
    let waiting: Vec<String> = shared.warming().into_iter().map(|(n, _)| n).collect();
    out.push_str("<h2>Discovery</h2>");
    let discovered: Vec<_> = config
        .clusters
        .iter()
        .filter_map(|(n, c)| Some((n, c, c.discovery.as_ref()?)))
        .collect();
    if discovered.is_empty() {
        out.push_str("<p id=\"discovery\" class=\"muted\">No cluster is discovered: every endpoint comes from the configuration file.</p>");
    } else {
        out.push_str("<table id=\"discovery\"><tr><th>Cluster</th><th>ZooKeeper</th><th>Interface</th><th>State</th><th>Methods</th></tr>");
        for (name, c, d) in discovered {
            let st = if waiting.contains(name) {
                "<span class=\"warn\">waiting for the first provider list</span>".to_owned()
            } else {
                format!("{} provider(s)", c.endpoints.len())
            };
            let mut iface = d.interface.clone();
            for (k, v) in [("version", &d.version), ("group", &d.group)] {
                if let Some(v) = v {
                    let _ = write!(iface, " {k}={v}");
                }
            }
            let _ = write!(
                out,
                "<tr><td>{}</td><td>{}{}</td><td>{}</td><td>{st}</td><td>{}</td></tr>",
                escape(name),
                escape(&d.zookeeper),
                escape(&d.root),
                escape(&iface),
                escape(&shared.discovered_methods(name).join(", ")),
            );
        }
        out.push_str("</table>");
    }
    if let Some(m) = &config.registry {
        let _ = write!(
            out,
            "<p>Registered as application <b>{}</b> in ZooKeeper {}{} (listeners: {}).</p>",
            escape(&m.application),
            escape(&m.zookeeper),
            escape(&m.root),
            escape(&m.listeners.join(", ")),
        );
    }
}

/// What a route matches, as the configuration says it.
fn matches(r: &Route) -> String {
    let mut m = format!("<code>{}</code>", escape(&r.interface));
    for (k, v) in [
        ("method", &r.method),
        ("version", &r.version),
        ("group", &r.group),
    ] {
        if let Some(v) = v {
            let _ = write!(m, " {k}=<code>{}</code>", escape(v));
        }
    }
    for (k, v) in &r.attachments {
        let _ = write!(m, " <code>{}={}</code>", escape(k), escape(v));
    }
    m
}

fn lb_name(lb: LbPolicy) -> &'static str {
    match lb {
        LbPolicy::RoundRobin => "round_robin",
        LbPolicy::Random => "random",
        LbPolicy::LeastRequest => "least_request",
    }
}

/// Calls in flight to these endpoints, where the policy counts them.
fn in_flight<'a>(lb: LbPolicy, eps: impl Iterator<Item = &'a SharedEndpoint>) -> String {
    if lb == LbPolicy::LeastRequest {
        eps.map(|e| u64::from(e.active.load(Relaxed)))
            .sum::<u64>()
            .to_string()
    } else {
        "–".to_owned()
    }
}

/// The calls cell.
fn calls(stats: Option<&std::sync::Arc<Stats>>) -> String {
    format!(
        "<td class=\"n calls\">{}</td>",
        stats.map_or(0, |s| s.requests())
    )
}

/// The cell of the calls a route's `[routes.access]` refused and its `[routes.rate_limit]`
/// turned away (a dash for a route with neither).
fn refused(metrics: &Registry, r: &Route, name: &str) -> String {
    if r.access.is_none() && r.rate_limit.is_none() {
        return "<td class=\"muted\">–</td>".to_owned();
    }
    let c = metrics.access.route(name);
    let (denied, limited) = (c.denied.load(Relaxed), c.rate_limited.load(Relaxed));
    let class = if denied + limited > 0 { "n bad" } else { "n" };
    format!("<td class=\"{class}\">{denied} / {limited}</td>")
}

/// The errors and p99 cells.
fn quality(stats: Option<&std::sync::Arc<Stats>>) -> String {
    let Some(s) = stats else {
        return "<td class=\"n\">0</td><td class=\"n\">–</td>".to_owned();
    };
    let errors = s.responses_total() - s.responses(Status::Ok);
    let class = if errors > 0 { "n bad" } else { "n" };
    format!(
        "<td class=\"{class}\">{errors}</td><td class=\"n\">{}</td>",
        p99(s.quantile_us(0.99))
    )
}

fn p99(us: Option<u64>) -> String {
    match us {
        None => "–".to_owned(),
        Some(u64::MAX) => "&gt; 10 s".to_owned(),
        Some(us) => format!("≤ {}", human(Duration::from_micros(us))),
    }
}

fn human(d: Duration) -> String {
    let us = d.as_micros();
    if us < 1_000 {
        format!("{us} µs")
    } else if us < 1_000_000 {
        format!("{} ms", us as f64 / 1e3)
    } else {
        format!("{} s", us as f64 / 1e6)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::Shared;
    use std::sync::atomic::AtomicBool;
    use std::sync::Arc;

    #[test]
    fn escapes_what_html_would_read() {
        assert_eq!(
            escape(r#"<a href="x">&'</a>"#),
            "&lt;a href=&quot;x&quot;&gt;&amp;&#39;&lt;/a&gt;"
        );
    }

    #[test]
    fn shows_routes_endpoints_and_escapes_names() {
        let text = "[[listeners]]\naddress = \"127.0.0.1:0\"\n\
                    [[routes]]\nname = \"<b>bold</b>\"\ncluster = \"c\"\n\
                    [clusters.c]\nendpoints = [{ address = \"127.0.0.1:1\" }]\n";
        let shared = Shared::new(Config::from_toml(text).unwrap(), 1);
        let stats = shared.metrics.route("<b>bold</b>");
        stats.request(0);
        let _ = shared.metrics.listeners[0]
            .bound
            .set("127.0.0.1:4242".parse().unwrap());
        shared.metrics.fds.set_limit(170);
        stats.response(0, Status::Ok.as_u8(), Duration::from_micros(300), false);
        let state = AdminState {
            shared,
            draining: Arc::new(AtomicBool::new(false)),
            warming: Arc::new(AtomicBool::new(false)),
        };
        let rates = Rates::default();
        let t0 = Instant::now();
        let page = render(&state, &rates, (200, "ok\n"), t0);
        assert!(page.contains("&lt;b&gt;bold&lt;/b&gt;"), "{page}");
        assert!(!page.contains("<b>bold</b>"), "{page}");
        assert!(page.contains("http-equiv=\"refresh\""));
        assert!(page.contains("<td class=\"ok\">healthy</td>"), "{page}");
        assert!(page.contains("<td class=\"n calls\">1</td>"), "{page}");
        assert!(page.contains("≤ 500 µs"), "{page}");
        assert!(!page.contains("<script"), "no script");
        assert!(
            page.contains("<td>127.0.0.1:4242</td>"),
            "the bound address: {page}"
        );
        assert!(page.contains("0 of the 170 the file"), "the budget: {page}");
        // The second view a second later has a rate.
        stats.request(0);
        let page = render(&state, &rates, (200, "ok\n"), t0 + Duration::from_secs(1));
        assert!(page.contains("<td class=\"n\">1.0</td>"), "{page}");
    }

    #[test]
    fn shows_what_a_routes_rules_refused() {
        let text = "[[listeners]]\naddress = \"127.0.0.1:0\"\n\
                    [[routes]]\nname = \"guarded\"\ncluster = \"c\"\n\
                    [routes.rate_limit]\ncalls_per_second = 1.0\n\
                    [[routes]]\nname = \"open\"\ncluster = \"c\"\n\
                    [clusters.c]\nendpoints = [{ address = \"127.0.0.1:1\" }]\n";
        let shared = Shared::new(Config::from_toml(text).unwrap(), 1);
        let counted = shared.metrics.access.route("guarded");
        counted.denied.fetch_add(2, Relaxed);
        counted.rate_limited.fetch_add(1, Relaxed);
        let state = AdminState {
            shared,
            draining: Arc::new(AtomicBool::new(false)),
            warming: Arc::new(AtomicBool::new(false)),
        };
        let page = render(&state, &Rates::default(), (200, "ok\n"), Instant::now());
        assert!(page.contains("<td class=\"n bad\">2 / 1</td>"), "{page}");
        assert!(page.contains("<td class=\"muted\">–</td></tr>"), "{page}");
    }
}
