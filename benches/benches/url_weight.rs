//! `registry-urlweight` against the `url` crate doing the same job on Dubbo provider URLs:
//! parse (every parameter, decoded), get (`weight`), assemble (rewrite the weight for an IDC
//! weight of 60) and serialize (assemble, then the result as an owned `String`).
//!
//! Groups are named `url_<operation>/<dataset>`, each with the functions `registry-urlweight`
//! and `url-crate`. Before the criterion timings, allocations per operation and a load-robust
//! ratio table (minimum of interleaved runs) are printed to stderr; the allocation counts also go
//! to `benches::report` (under the criterion group and function names) for `benches/RESULTS.md`.
//!
//! ```sh
//! cargo bench -p benches --bench url_weight -- --warm-up-time 1 --measurement-time 3
//! ```

use std::borrow::Cow;
use std::hint::black_box;
use std::time::Instant;

use benches::alloc::{count, CountingAlloc};
use benches::report;
use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion};

#[global_allocator]
static GLOBAL: CountingAlloc = CountingAlloc;

/// A Dubbo 2.7 demo provider: 10 parameters, 231 bytes.
const URL_10: &str = "dubbo://10.0.0.1:20880/org.apache.dubbo.demo.DemoService?anyhost=true&application=demo&dubbo=2.0.2&interface=org.apache.dubbo.demo.DemoService&methods=sayHello&pid=1234&side=provider&timestamp=1700000000000&version=1.0.0&weight=100";

/// A Dubbo 3 business provider: 19 parameters, 546 bytes.
const URL_19: &str = "dubbo://10.20.153.10:20880/com.example.order.api.OrderQueryService?anyhost=true&application=order-service-provider&bind.ip=10.20.153.10&bind.port=20880&deprecated=false&dubbo=2.0.2&dynamic=true&generic=false&group=order&interface=com.example.order.api.OrderQueryService&methods=cancelOrder,countOrdersByStatus,createOrder,getOrderById,getOrderItems,listOrdersByUser,queryOrderStatus,updateOrderAddress,updateOrderRemark&pid=28413&release=3.2.10&service-name-mapping=true&side=provider&timeout=3000&timestamp=1712131415161&version=1.0.0&weight=100";

/// An IPv6 provider without a `weight` (the new weight is appended).
const URL_IPV6_NO_WEIGHT: &str = "dubbo://[2001:db8::15]:20880/org.apache.dubbo.demo.GreetingService?anyhost=true&application=greeting&dubbo=2.0.2&interface=org.apache.dubbo.demo.GreetingService&methods=greet&pid=4321&side=provider&timestamp=1700000001000";

/// A provider pinned by `lidc_weight` (left unchanged).
const URL_PINNED: &str = "dubbo://10.0.0.2:20880/org.apache.dubbo.demo.DemoService?anyhost=true&application=demo&dubbo=2.0.2&interface=org.apache.dubbo.demo.DemoService&lidc_weight=3&methods=sayHello&pid=1235&side=provider&timestamp=1700000000000&version=1.0.0&weight=200";

/// The article's benchmark runs its function over four URLs per iteration.
const BATCH_4: [&str; 4] = [URL_10, URL_19, URL_IPV6_NO_WEIGHT, URL_PINNED];

const DATASETS: [(&str, &[&str]); 3] = [
    ("10_params", &[URL_10]),
    ("19_params", &[URL_19]),
    ("batch_4", &BATCH_4),
];

const IDC_WEIGHT: u32 = 60;

/// The crate under test.
mod ours {
    use super::*;
    use registry_urlweight as rw;

    pub fn parse(url: &str) -> usize {
        rw::params(url)
            .map(|p| p.decoded_key().len() + p.decoded_value().len())
            .sum()
    }

    pub fn get(url: &str) -> Option<usize> {
        rw::get_param(url, "weight").map(str::len)
    }

    pub fn assemble(url: &str) -> Cow<'_, str> {
        rw::assemble_url_weight(url, IDC_WEIGHT)
    }

    pub fn serialize(url: &str) -> String {
        assemble(url).into_owned()
    }
}

/// The same job done with the `url` crate: `Url::parse`, `query_pairs()` to find,
/// `query_pairs_mut()` to rewrite, the `Url`'s own string to serialize. Same rules as the crate
/// (last value wins, empty `lidc_weight` counts as absent, weight saturates at `i32::MAX`).
mod url_crate {
    use super::*;
    use url::Url;

    pub fn parse(url: &str) -> usize {
        Url::parse(url)
            .map(|u| u.query_pairs().map(|(k, v)| k.len() + v.len()).sum())
            .unwrap_or(0)
    }

    pub fn get(url: &str) -> Option<usize> {
        let u = Url::parse(url).ok()?;
        let found = u.query_pairs().filter(|(k, _)| k == "weight").last();
        found.map(|(_, v)| v.len())
    }

    fn weight_of(value: Option<&str>) -> u64 {
        value
            .and_then(|v| v.parse::<i32>().ok())
            .map_or(100, |n| n.max(0) as u64)
    }

    /// `None` when the URL is left unchanged. The pairs borrow from a copy of the query (so
    /// that `query_pairs_mut` may borrow the `Url`), which saves an allocation per parameter
    /// over `query_pairs().into_owned()`.
    pub fn assemble_url(url: &str) -> Option<Url> {
        let mut u = Url::parse(url).ok()?;
        let query = u.query().unwrap_or("").to_owned();
        let mut pairs: Vec<(Cow<'_, str>, Cow<'_, str>)> =
            url::form_urlencoded::parse(query.as_bytes()).collect();
        let last = |pairs: &[(Cow<'_, str>, Cow<'_, str>)], key: &str| {
            pairs.iter().rposition(|(k, _)| k == key)
        };
        if IDC_WEIGHT == 1 || last(&pairs, "lidc_weight").is_some_and(|i| !pairs[i].1.is_empty()) {
            return None;
        }
        let at = last(&pairs, "weight");
        let weight = weight_of(at.map(|i| &*pairs[i].1));
        let new = (weight * u64::from(IDC_WEIGHT))
            .min(i32::MAX as u64)
            .to_string();
        match at {
            Some(i) => {
                pairs[i].1 = Cow::Owned(new);
                let mut index = 0;
                pairs.retain(|(k, _)| {
                    index += 1;
                    k != "weight" || index - 1 == i
                });
            }
            None => pairs.push((Cow::Borrowed("weight"), Cow::Owned(new))),
        }
        u.query_pairs_mut().clear().extend_pairs(&pairs);
        Some(u)
    }

    /// The rewritten URL's text (a `Url` keeps its serialization, so no `String` is built).
    pub fn assemble(url: &str) -> usize {
        assemble_url(url).map_or(url.len(), |u| u.as_str().len())
    }

    /// The rewritten URL as an owned `String`: the `Url`'s own buffer, moved out (the cheapest
    /// way; `to_string()` would copy it).
    pub fn serialize(url: &str) -> String {
        match assemble_url(url) {
            Some(u) => u.into(),
            None => url.to_owned(),
        }
    }
}

type Op = fn(&str) -> usize;

fn ops() -> [(&'static str, Op, Op); 4] {
    [
        ("parse", ours::parse, url_crate::parse),
        (
            "get",
            |u| ours::get(u).unwrap_or(usize::MAX),
            |u| url_crate::get(u).unwrap_or(usize::MAX),
        ),
        ("assemble", |u| ours::assemble(u).len(), url_crate::assemble),
        (
            "serialize",
            |u| ours::serialize(u).len(),
            |u| url_crate::serialize(u).len(),
        ),
    ]
}

/// Both implementations must agree before their speed is compared.
fn check_agreement() {
    use url::Url;
    for url in BATCH_4 {
        assert_eq!(ours::parse(url), url_crate::parse(url), "{url}");
        assert_eq!(ours::get(url), url_crate::get(url), "{url}");
        let a = Url::parse(&ours::serialize(url)).unwrap();
        let b = Url::parse(&url_crate::serialize(url)).unwrap();
        let pairs = |u: &Url| u.query_pairs().into_owned().collect::<Vec<_>>();
        assert_eq!(pairs(&a), pairs(&b), "{url}");
        assert_eq!(
            (a.host_str(), a.port(), a.path()),
            (b.host_str(), b.port(), b.path())
        );
    }
    assert!(matches!(ours::assemble(URL_PINNED), Cow::Borrowed(_)));
}

fn report_allocations() {
    eprintln!("allocations per operation (per iteration of the dataset):");
    eprintln!(
        "{:<10} {:<10} {:>20} {:>10}",
        "operation", "dataset", "registry-urlweight", "url-crate"
    );
    for (op, mine, theirs) in ops() {
        for (dataset, urls) in DATASETS {
            let run = |f: Op| {
                // Once first, so that nothing lazily initialized is counted.
                urls.iter().for_each(|u| {
                    black_box(f(black_box(u)));
                });
                count(|| {
                    urls.iter().for_each(|u| {
                        black_box(f(black_box(u)));
                    })
                })
                .1
            };
            let (a, b) = (run(mine), run(theirs));
            eprintln!("{op:<10} {dataset:<10} {a:>20} {b:>10}");
            let group = format!("url_{op}/{dataset}");
            report::record(&group, "registry-urlweight", a, None);
            report::record(&group, "url-crate", b, None);
        }
    }
    let unchanged = [
        (
            "assemble idc_weight=1",
            count(|| {
                black_box(registry_urlweight::assemble_url_weight(
                    black_box(URL_19),
                    1,
                ))
            })
            .1,
        ),
        (
            "assemble lidc_weight",
            count(|| black_box(ours::assemble(black_box(URL_PINNED)))).1,
        ),
    ];
    for (what, n) in unchanged {
        eprintln!("{what:<32} registry-urlweight: {n} allocations");
        assert_eq!(n, 0, "{what} must not allocate");
    }
}

/// Nanoseconds per iteration of `urls` for both implementations, each the minimum over many
/// short runs taken in alternation: on a busy machine (where criterion's means of one function
/// and then the other drift apart) the minimum of interleaved runs keeps the ratio honest.
fn interleaved_min_ns(urls: &[&str], mine: Op, theirs: Op) -> (f64, f64) {
    const ROUNDS: usize = 300;
    let run = |f: Op, iters: u32| {
        let start = Instant::now();
        for _ in 0..iters {
            for url in urls {
                black_box(f(black_box(url)));
            }
        }
        start.elapsed().as_nanos() as f64 / f64::from(iters)
    };
    let (mut best_mine, mut best_theirs) = (f64::MAX, f64::MAX);
    for _ in 0..ROUNDS {
        best_mine = best_mine.min(run(mine, 100));
        best_theirs = best_theirs.min(run(theirs, 5));
    }
    (best_mine, best_theirs)
}

fn report_ratios() {
    eprintln!("ns per iteration, minimum of interleaved runs:");
    eprintln!(
        "{:<10} {:<10} {:>20} {:>10} {:>7}",
        "operation", "dataset", "registry-urlweight", "url-crate", "ratio"
    );
    for (op, mine, theirs) in ops() {
        for (dataset, urls) in DATASETS {
            let (a, b) = interleaved_min_ns(urls, mine, theirs);
            eprintln!("{op:<10} {dataset:<10} {a:>20.1} {b:>10.1} {:>6.1}x", b / a);
        }
    }
}

fn bench(c: &mut Criterion) {
    check_agreement();
    report_allocations();
    report_ratios();
    for (op, mine, theirs) in ops() {
        for (dataset, urls) in DATASETS {
            let mut group = c.benchmark_group(format!("url_{op}/{dataset}"));
            for (name, f) in [("registry-urlweight", mine), ("url-crate", theirs)] {
                group.bench_function(BenchmarkId::from_parameter(name), |b| {
                    b.iter(|| {
                        for url in urls {
                            black_box(f(black_box(url)));
                        }
                    })
                });
            }
            group.finish();
        }
    }
}

criterion_group!(benches, bench);
criterion_main!(benches);
