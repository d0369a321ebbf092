//! The admin status page (`GET /`) as a browser shows it: headless Chromium (Debian's
//! `chromium` package) loads it from a running proxy that has served calls, and the test
//! reads the DOM Chromium built and takes a screenshot.
//!
//! Without Chromium the test is skipped with a message, except in CI (`CI` set), where a
//! missing browser is a failure: `.ci/run` installs it.
//! `ADMIN_PAGE_SCREENSHOT=/path/to.png` keeps the screenshot (how `docs/admin-page.png` is
//! made).

mod common;

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use common::*;
use dubbo_codec::Status;

/// The browser's command, if one is installed.
fn chromium() -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    ["chromium", "chromium-browser"].iter().find_map(|name| {
        std::env::split_paths(&path)
            .map(|dir| dir.join(name))
            .find(|p| p.is_file())
    })
}

/// Runs headless Chromium with `args` and a throwaway profile; its stdout. Killed after 60 s.
fn run_chromium(browser: &Path, profile: &Path, args: &[String]) -> String {
    let mut child = Command::new(browser)
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--no-first-run",
            "--disable-dev-shm-usage",
        ])
        .arg(format!("--user-data-dir={}", profile.display()))
        .args(args)
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("start chromium");
    let out = child.stdout.take().unwrap();
    let reader = std::thread::spawn(move || std::io::read_to_string(out).unwrap_or_default());
    let end = Instant::now() + Duration::from_secs(60);
    loop {
        if child.try_wait().unwrap().is_some() {
            break;
        }
        if Instant::now() > end {
            let _ = child.kill();
            let _ = child.wait();
            panic!("chromium took over 60 s");
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    reader.join().unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_status_page_in_headless_chromium() {
    let Some(browser) = chromium() else {
        assert!(
            std::env::var_os("CI").is_none(),
            "chromium is not installed, and CI is set: install Debian's `chromium` package"
        );
        eprintln!("SKIPPED: chromium is not installed (apt-get install chromium); CI would fail");
        return;
    };
    let a = Upstream::start("a").await;
    let conf = config(
        2,
        &format!(
            "[[routes]]\nname = \"all\"\ninterface = \"com.example.*\"\ncluster = \"a\"\n\
             [clusters.a]\nlb = \"least_request\"\nendpoints = [{{ address = \"{}\", weight = 3 }}]\n",
            a.addr
        ),
    );
    let p = Proxy::start("tokio", &conf);
    let mut cl = Client::connect(p.addr()).await;
    for id in 0..5 {
        assert_eq!(cl.call(id, &call("x")).await.0, Status::Ok);
    }
    let url = format!("http://{}/", p.admin.unwrap());
    let dir = TempDir::new();

    let dom = run_chromium(
        &browser,
        &dir.0.join("profile-dom"),
        &["--dump-dom".into(), url.clone()],
    );
    // What Chromium made of the page: health, the route, its cluster's endpoint healthy,
    // the calls counted.
    assert!(dom.contains("<title>dubbo-proxy status</title>"), "{dom}");
    assert!(
        dom.contains("<span id=\"health\" class=\"ok\">ok</span>"),
        "{dom}"
    );
    let routes = section(&dom, "routes");
    assert!(routes.contains("<td>all</td>"), "{routes}");
    assert!(routes.contains("<code>com.example.*</code>"), "{routes}");
    assert!(routes.contains("<td class=\"n calls\">5</td>"), "{routes}");
    let endpoints = section(&dom, "endpoints");
    assert!(
        endpoints.contains(&format!(
            "<td>{}</td><td class=\"n\">3</td><td class=\"ok\">healthy</td>",
            a.addr
        )),
        "{endpoints}"
    );
    let listeners = section(&dom, "listeners");
    assert!(listeners.contains("<td>main</td>"), "{listeners}");
    // The address it is bound to (its configured port 0 resolved), and the callers' budget.
    assert!(
        listeners.contains(&format!("<td>{}</td>", p.addr())),
        "{listeners}"
    );
    assert!(
        dom.contains("<p id=\"fd-budget\">Caller connections of all listeners: 1 of the"),
        "{dom}"
    );
    // least_request counts calls in flight: none now.
    let clusters = section(&dom, "clusters");
    assert!(
        clusters.contains(
            "<td>least_request</td><td class=\"n\">1 of 1 healthy</td><td class=\"n\">0</td>"
        ),
        "{clusters}"
    );
    assert!(dom.contains("No cluster is discovered"), "{dom}");

    let png = dir.0.join("admin-page.png");
    run_chromium(
        &browser,
        &dir.0.join("profile-shot"),
        &[
            format!("--screenshot={}", png.display()),
            "--window-size=1280,900".into(),
            "--hide-scrollbars".into(),
            url,
        ],
    );
    let image = std::fs::read(&png).expect("chromium wrote no screenshot");
    assert!(image.starts_with(b"\x89PNG\r\n\x1a\n"), "not a PNG");
    assert!(image.len() > 10_000, "{} bytes: a blank page?", image.len());
    if let Some(keep) = std::env::var_os("ADMIN_PAGE_SCREENSHOT") {
        std::fs::copy(&png, keep).unwrap();
    }
}

/// The table with this `id` in the DOM (to its end).
fn section<'a>(dom: &'a str, id: &str) -> &'a str {
    let start = dom
        .find(&format!("<table id=\"{id}\">"))
        .unwrap_or_else(|| panic!("no table {id}: {dom}"));
    let rest = &dom[start..];
    &rest[..rest.find("</table>").unwrap_or(rest.len())]
}
