//! `dubbo-codec`'s hot paths: the 16-byte header, the argument count of a parameter
//! descriptor (against a naive split-based count like MOSN's first one), routing metadata
//! from a request body (peek, peek with the metadata cache, full decode), and encoding a
//! request and a response.
//!
//! Groups: `dubbo_header/decode`, `dubbo_arg_count/<descriptor>` (`dubbo-codec`,
//! `naive-split`), `dubbo_route/<body>` (`peek-cache`, `peek`, `full-decode`; each body in
//! Hessian2 and, as `<body>-fastjson2`, in fastjson2 as Dubbo 3.3 writes it),
//! `dubbo_request_encode/<body>`, `dubbo_response_encode/<body>`. Allocations per operation
//! are counted before the timings and recorded with `benches::report` (function
//! `<implementation>/<input>`, as criterion names a `BenchmarkId::new`).
//!
//! The encode groups compare the dynamic (`Value`) and the typed (serde) ways of writing the
//! same body (the setup checks the bytes are equal):
//!
//! * `dubbo_request_encode`: `value/<body>` encodes a request built beforehand from values;
//!   `typed-prebuilt/pojo_map_args` the same for a request built beforehand with typed
//!   arguments; `typed/pojo_map_args` builds the request from the Rust values and encodes it
//!   (what a typed call pays), `value-built/pojo_map_args` builds it from values made for the
//!   call and encodes it (what a dynamic call pays).
//! * `dubbo_response_encode/pojo`: `typed` is `encode_typed_result` of a Rust struct,
//!   `value` encodes an `RpcResult` holding the same value, made beforehand.
//!
//! `dubbo_route`'s `peek` is what the proxy calls when a route tells groups apart
//! (`dubbo_codec::peek_with`, attachments read, no cache), in the serialization the frame
//! header names. Instructions per peek under callgrind (`DUBBO_ROUTE_PROFILE=<function>/<body>`
//! makes the bench binary loop that call `DUBBO_ROUTE_ITERS` times and exit; per call = the
//! difference of two runs (10,000 and 20,000) / 10,000; dubbo-codec as of f39a472, 2026-11-29):
//!
//! | body | peek, hessian2 | peek, fastjson2 | peek-cache, hessian2 | peek-cache, fastjson2 |
//! | --- | ---: | ---: | ---: | ---: |
//! | string_arg (296 B / 321 B) | 3,983 | 5,751 | 1,239 | 1,637 |
//! | pojo_map_args (424 B / 462 B) | 5,626 | 6,194 | 1,227 | 1,625 |
//!
//! Warm, neither peek allocates (route allocations are counted after one warm-up call: the
//! 16 once reported for the Hessian2 peek of `pojo_map_args` were its first call's). The
//! fastjson2 peek steps over an argument by its frame length, but pays per value: each head
//! string and the attachments are a document of their own, read by a new `Decoder`
//! (`Decoder::pull`, `text_of`'s UTF-8 check and `Decoder::new` are the top of its profile).
//!
//! ```sh
//! cargo bench -p benches --bench dubbo_codec -- --warm-up-time 1 --measurement-time 3
//! cargo bench -p benches --bench dubbo_codec --no-run   # then, for callgrind:
//! DUBBO_ROUTE_PROFILE=peek/pojo_map_args-fastjson2 DUBBO_ROUTE_ITERS=10000 \
//!     valgrind --tool=callgrind target/release/deps/dubbo_codec-<hash>
//! ```

use std::hint::black_box;

use benches::alloc::{count, CountingAlloc};
use benches::report;
use bytes::Bytes;
use criterion::{criterion_group, BenchmarkId, Criterion};
use dubbo_codec::metadata::MetadataCache;
use dubbo_codec::response::{encode_typed_result, Outcome, RpcResult};
use dubbo_codec::{
    arg_count, peek_with, Attachments, BodyFormat, Frame, Header, Peek, PeekOptions, Request,
    RequestBuilder,
};
use hessian2::value::{Object, Value};
use serde::ser::SerializeMap;
use serde::{Serialize, Serializer};

#[global_allocator]
static GLOBAL: CountingAlloc = CountingAlloc;

const SERVICE: &str = "com.example.order.api.OrderQueryService";

const DESCRIPTORS: [(&str, &str); 3] = [
    ("1_string", "Ljava/lang/String;"),
    (
        "5_mixed",
        "Ljava/lang/String;I[JLcom/example/order/api/OrderQuery;Ljava/util/Map;",
    ),
    (
        "10_mixed",
        "JLjava/lang/String;IZ[Ljava/lang/String;Ljava/util/List;DLcom/example/User;[[IB",
    ),
];

/// The count as a first implementation does it: split at `;`, then walk each piece, building
/// the list of type names on the way (the `str::split` approach MOSN's router first had).
fn naive_arg_count(desc: &str) -> usize {
    let mut types: Vec<String> = Vec::new();
    for piece in desc.split(';').filter(|p| !p.is_empty()) {
        let mut array = String::new();
        for (i, c) in piece.char_indices() {
            match c {
                '[' => array.push('['),
                'L' => {
                    types.push(format!("{array}{}", &piece[i..]));
                    break;
                }
                _ => {
                    types.push(format!("{array}{c}"));
                    array.clear();
                }
            }
        }
    }
    types.len()
}

#[derive(Serialize)]
#[serde(rename = "com.example.order.api.OrderQuery")]
struct OrderQuery {
    status: Option<String>,
    page: i32,
    size: i32,
    user_id: i64,
}

fn order_query() -> OrderQuery {
    OrderQuery {
        status: Some("PAID".into()),
        page: 1,
        size: 20,
        user_id: 1_234_567,
    }
}

/// The second argument of `listOrdersByUser`, a `java.util.Map`, as a Rust type whose map
/// entries come in the order of [`filters_value`].
struct Filters {
    region: &'static str,
    channel: &'static str,
    limit: i32,
}

impl Serialize for Filters {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut m = s.serialize_map(Some(3))?;
        m.serialize_entry("region", self.region)?;
        m.serialize_entry("channel", self.channel)?;
        m.serialize_entry("limit", &self.limit)?;
        m.end()
    }
}

const FILTERS: Filters = Filters {
    region: "cn-east",
    channel: "app",
    limit: 100,
};

fn filters_value() -> Value {
    Value::untyped_map(vec![
        (Value::from("region"), Value::from("cn-east")),
        (Value::from("channel"), Value::from("app")),
        (Value::from("limit"), Value::Int(100)),
    ])
}

/// `listOrdersByUser` with the arguments `args` adds, built.
fn list_orders(args: impl FnOnce(RequestBuilder) -> RequestBuilder) -> Request {
    with_java_attachments(args(Request::builder(SERVICE, "listOrdersByUser")))
        .build()
        .unwrap()
}

/// `listOrdersByUser` with typed (serde) arguments, built.
fn build_typed(q: &OrderQuery, f: &Filters) -> Request {
    list_orders(|b| {
        b.arg("com.example.order.api.OrderQuery", q)
            .arg("java.util.Map", f)
    })
}

/// `listOrdersByUser` with typed arguments, built and encoded: the body's length.
fn encode_typed(q: &OrderQuery, f: &Filters) -> usize {
    build_typed(q, f).to_bytes().len()
}

/// `listOrdersByUser` with values made for the call, built and encoded: the body's length.
fn encode_value_built() -> usize {
    build_value(order_query_value(), filters_value())
        .to_bytes()
        .len()
}

fn build_value(query: Value, filters: Value) -> Request {
    list_orders(|b| {
        b.value_arg("com.example.order.api.OrderQuery", query)
            .value_arg("java.util.Map", filters)
    })
}

/// A Java provider's answer to a 2.0.2 caller: flag 4, the value, `{dubbo: "2.0.2"}`.
fn response_attachments() -> Attachments {
    [("dubbo", "2.0.2")].into_iter().collect()
}

fn order_query_value() -> Value {
    Value::Object(Object::new(
        "com.example.order.api.OrderQuery",
        [
            ("status", Value::from("PAID")),
            ("page", Value::Int(1)),
            ("size", Value::Int(20)),
            ("user_id", Value::Long(1_234_567)),
        ],
    ))
}

/// The attachments a Java 3.x consumer sends, plus a group and a trace id.
fn with_java_attachments(b: RequestBuilder) -> RequestBuilder {
    b.version("1.0.0")
        .group("order")
        .timeout(std::time::Duration::from_millis(3000))
        .attach("remote.application", "order-web")
        .attach("traceId", "7f3a9c2e1b4d5f60")
}

/// (name, request): a string argument (the common case) and a POJO + map call.
fn requests() -> Vec<(&'static str, Request)> {
    let small = with_java_attachments(
        Request::builder(SERVICE, "getOrderById")
            .value_arg("java.lang.String", "SO-20240401-000123"),
    )
    .build()
    .unwrap();
    let pojo = build_value(order_query_value(), filters_value());
    assert_eq!(
        build_typed(&order_query(), &FILTERS).to_bytes(),
        pojo.to_bytes(),
        "the typed and the value request write the same body"
    );
    vec![("string_arg", small), ("pojo_map_args", pojo)]
}

/// A routed body: its name in `dubbo_route`, its serialization, its bytes.
type Body = (String, BodyFormat, Bytes);

/// Each request's body in Hessian2 (named as the request) and in fastjson2 (`-fastjson2`).
fn route_bodies(reqs: &[(&str, Request)]) -> Vec<Body> {
    let mut out = Vec::new();
    for (name, req) in reqs {
        out.push((name.to_string(), req.format, req.to_bytes()));
        let mut fj = req.clone();
        fj.format = BodyFormat::FASTJSON2;
        let body = fj.to_bytes();
        assert_eq!(
            Request::decode_in(BodyFormat::FASTJSON2, &body).unwrap(),
            *req
        );
        out.push((format!("{name}-fastjson2"), fj.format, body));
    }
    out
}

/// `dubbo_route`'s functions: the peek the proxy makes (attachments read), the same with the
/// metadata cache, and a full decode.
#[derive(Clone, Copy)]
enum Route {
    PeekCache,
    Peek,
    FullDecode,
}

const ROUTES: [(Route, &str); 3] = [
    (Route::PeekCache, "peek-cache"),
    (Route::Peek, "peek"),
    (Route::FullDecode, "full-decode"),
];

/// `true` when the request names a group.
fn route(how: Route, format: BodyFormat, body: &[u8], cache: &MetadataCache) -> bool {
    let group = |p: Peek<'_>| p.group.is_some();
    let options = PeekOptions::new(format);
    match how {
        Route::Peek => group(peek_with::<&str>(body, options, &[], |_, _| {}).unwrap()),
        Route::PeekCache => {
            group(peek_with::<&str>(body, options.cache(Some(cache)), &[], |_, _| {}).unwrap())
        }
        Route::FullDecode => Request::decode_in(format, body).unwrap().group().is_some(),
    }
}

fn report_allocations(reqs: &[(&str, Request)], bodies: &[Body], cache: &MetadataCache) {
    let mut wire = Vec::new();
    reqs[0].1.to_frame(1, true).encode(&mut wire).unwrap();
    let (_, n) = count(|| black_box(Header::parse(black_box(&wire[..])).unwrap().unwrap()));
    report::record("dubbo_header", "decode", n, None);
    let h = Frame::heartbeat_request(7).header().with_body_len(300);
    let (_, n) = count(|| black_box(black_box(h).to_bytes()));
    report::record("dubbo_header", "encode", n, None);
    for (name, req) in reqs {
        let (len, n) = count(|| black_box(req).to_bytes().len());
        report::record(
            "dubbo_request_encode",
            &format!("value/{name}"),
            n,
            Some(len),
        );
    }
    let q = order_query();
    let (len, n) = count(|| encode_typed(black_box(&q), black_box(&FILTERS)));
    report::record("dubbo_request_encode", "typed/pojo_map_args", n, Some(len));
    let (len, n) = count(encode_value_built);
    report::record(
        "dubbo_request_encode",
        "value-built/pojo_map_args",
        n,
        Some(len),
    );
    let typed = build_typed(&q, &FILTERS);
    let (len, n) = count(|| black_box(&typed).to_bytes().len());
    report::record(
        "dubbo_request_encode",
        "typed-prebuilt/pojo_map_args",
        n,
        Some(len),
    );
    let (u, a) = (order_query(), response_attachments());
    // Once before counting, as the timing loop does: the thread's serializer learns the type.
    encode_typed_result(&u, Some(&a)).unwrap();
    let (len, n) = count(|| encode_typed_result(black_box(&u), Some(&a)).unwrap().len());
    report::record("dubbo_response_encode", "typed/pojo", n, Some(len));
    let r = RpcResult::for_request(Outcome::Value(order_query_value()), "2.0.2");
    let (len, n) = count(|| black_box(&r).to_bytes().len());
    report::record("dubbo_response_encode", "value/pojo", n, Some(len));
    for (name, format, body) in bodies {
        for (how, function) in ROUTES {
            // Warm, as the timing loop runs: a thread's one-time set-up is not a call's cost.
            route(how, *format, body, cache);
            let (_, n) = count(|| black_box(route(how, *format, black_box(body), cache)));
            report::record(
                "dubbo_route",
                &format!("{function}/{name}"),
                n,
                Some(body.len()),
            );
        }
    }
    for (name, d) in DESCRIPTORS {
        let (_, ours) = count(|| black_box(arg_count(d).unwrap()));
        let (_, naive) = count(|| black_box(naive_arg_count(d)));
        report::record(
            "dubbo_arg_count",
            &format!("dubbo-codec/{name}"),
            ours,
            None,
        );
        report::record(
            "dubbo_arg_count",
            &format!("naive-split/{name}"),
            naive,
            None,
        );
    }
}

fn route_cache() -> MetadataCache {
    let mut cache = MetadataCache::new();
    cache.register(SERVICE, "1.0.0", SERVICE, Some("order"));
    cache
}

fn bench(c: &mut Criterion) {
    let reqs = requests();
    let bodies = route_bodies(&reqs);
    let cache = route_cache();
    for (_, d) in DESCRIPTORS {
        assert_eq!(arg_count(d).unwrap(), naive_arg_count(d));
    }
    report_allocations(&reqs, &bodies, &cache);

    let mut wire = Vec::new();
    reqs[0].1.to_frame(1, true).encode(&mut wire).unwrap();
    let mut g = c.benchmark_group("dubbo_header");
    g.bench_function("decode", |b| {
        b.iter(|| {
            Header::parse(black_box(&wire[..]))
                .unwrap()
                .unwrap()
                .body_len()
        })
    });
    g.bench_function("encode", |b| {
        let h = Frame::heartbeat_request(7).header().with_body_len(300);
        b.iter(|| black_box(h).to_bytes())
    });
    g.finish();

    let mut g = c.benchmark_group("dubbo_arg_count");
    for (name, d) in DESCRIPTORS {
        g.bench_with_input(BenchmarkId::new("dubbo-codec", name), d, |b, d| {
            b.iter(|| arg_count(black_box(d)).unwrap())
        });
        g.bench_with_input(BenchmarkId::new("naive-split", name), d, |b, d| {
            b.iter(|| naive_arg_count(black_box(d)))
        });
    }
    g.finish();

    let mut g = c.benchmark_group("dubbo_route");
    for (name, format, body) in &bodies {
        for (how, function) in ROUTES {
            g.bench_with_input(BenchmarkId::new(function, name), body, |b, body| {
                b.iter(|| route(how, *format, black_box(body), &cache))
            });
        }
    }
    g.finish();

    let mut g = c.benchmark_group("dubbo_request_encode");
    for (name, req) in &reqs {
        g.bench_with_input(BenchmarkId::new("value", name), req, |b, req| {
            b.iter(|| black_box(req).to_bytes().len())
        });
    }
    g.bench_function(BenchmarkId::new("typed", "pojo_map_args"), |b| {
        let q = order_query();
        b.iter(|| encode_typed(black_box(&q), black_box(&FILTERS)))
    });
    g.bench_function(BenchmarkId::new("value-built", "pojo_map_args"), |b| {
        b.iter(encode_value_built)
    });
    g.bench_function(BenchmarkId::new("typed-prebuilt", "pojo_map_args"), |b| {
        let req = build_typed(&order_query(), &FILTERS);
        b.iter(|| black_box(&req).to_bytes().len())
    });
    g.finish();

    let (u, a) = (order_query(), response_attachments());
    let r = RpcResult::for_request(Outcome::Value(order_query_value()), "2.0.2");
    assert_eq!(
        encode_typed_result(&u, Some(&a)).unwrap(),
        r.to_bytes(),
        "the typed and the value result write the same body"
    );
    let mut g = c.benchmark_group("dubbo_response_encode");
    g.bench_function(BenchmarkId::new("value", "pojo"), |b| {
        b.iter(|| black_box(&r).to_bytes().len())
    });
    g.bench_function(BenchmarkId::new("typed", "pojo"), |b| {
        b.iter(|| encode_typed_result(black_box(&u), Some(&a)).unwrap().len())
    });
    g.finish();
}

/// `DUBBO_ROUTE_PROFILE=<function>/<body>`: `DUBBO_ROUTE_ITERS` (default 1) calls of that
/// `dubbo_route` function, for callgrind (see the module docs).
fn profile(which: &str) {
    let iters: usize = std::env::var("DUBBO_ROUTE_ITERS").map_or(1, |v| v.parse().unwrap());
    let (function, name) = which.split_once('/').expect("<function>/<body>");
    let (how, _) = ROUTES
        .into_iter()
        .find(|(_, f)| *f == function)
        .unwrap_or_else(|| panic!("no dubbo_route function {function}"));
    let bodies = route_bodies(&requests());
    let cache = route_cache();
    let (_, format, body) = bodies
        .iter()
        .find(|(n, _, _)| n == name)
        .unwrap_or_else(|| panic!("no body {name}"));
    for _ in 0..iters {
        black_box(route(how, *format, black_box(body), &cache));
    }
}

criterion_group!(benches, bench);

fn main() {
    if let Ok(which) = std::env::var("DUBBO_ROUTE_PROFILE") {
        return profile(&which);
    }
    benches();
    Criterion::default().configure_from_args().final_summary();
}
