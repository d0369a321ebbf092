//! The Triple share of the load: callers that call the proxy's listener in Triple (dubbo-rpc's
//! Triple client, one HTTP/2 connection each, every call a stream of its own), with the same
//! unique tokens as the Dubbo callers. HTTP/2 gives each answer to its own stream, so a
//! Triple caller cannot see a stray; it checks what it can: an OK answer with another call's
//! token is *misrouted*, a call with no answer within the client timeout (or lost with its
//! connection) is *never answered*.

use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::time::Duration;

use dubbo_rpc::triple_client::{Client, ClientConfig, TripleCall, TripleError};
use tokio::sync::Notify;
use tokio::task::JoinSet;

use super::caller::{Shared, Tally};
use super::provider::INTERFACE;
use super::rng::Rng;

/// How one Triple call ended.
enum Outcome {
    Ok,
    Misrouted(String),
    /// A status the proxy (or the provider) answered, as the Dubbo status it stands for.
    Status(u8),
    Lost(String),
}

/// One Triple caller: paced calls until told to stop; `disconnect` drops its connection
/// right after its next call (what is in flight is abandoned) and reconnects.
pub async fn triple_caller(id: u32, shared: Arc<Shared>, disconnect: Arc<Notify>) -> Tally {
    let mut tally = Tally::default();
    let mut rng = Rng::new(shared.seed ^ (u64::from(id) << 32) ^ 0x7472_6970);
    let mut seq = 0u64;
    let mut tick = tokio::time::interval(shared.period);
    tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    let addr = shared.proxy.to_string();
    let config = ClientConfig::default().connect_timeout(Duration::from_secs(2));
    let mut drop_after_send = false;
    loop {
        let client = match Client::connect_with(&addr, config).await {
            Ok(c) => c,
            Err(e) => {
                tally.connect_errors += 1;
                tally.example(&shared, format!("triple caller {id}: connect: {e}"));
                if shared.stop.load(Ordering::Acquire) {
                    return tally;
                }
                tokio::time::sleep(Duration::from_millis(100)).await;
                continue;
            }
        };
        let mut calls: JoinSet<(String, Outcome)> = JoinSet::new();
        loop {
            let stopping = shared.stop.load(Ordering::Acquire);
            if stopping && calls.is_empty() {
                return tally;
            }
            tokio::select! {
                Some(done) = calls.join_next(), if !calls.is_empty() => {
                    let (token, outcome) = done.expect("a call task panicked");
                    count(id, &shared, &mut tally, &token, outcome);
                }
                _ = tick.tick(), if !stopping && calls.len() < shared.window => {
                    seq += 1;
                    let token = format!("t{id}-s{seq}");
                    let call = triple_call(&token, &mut rng, shared.client_timeout);
                    let client = client.clone();
                    tally.sent += 1;
                    tally.triple += 1;
                    shared.sent.fetch_add(1, Ordering::Relaxed);
                    calls.spawn(async move {
                        let outcome = match client.call::<String>(&call).await {
                            Ok(s) if s == token => Outcome::Ok,
                            Ok(s) => Outcome::Misrouted(s),
                            Err(TripleError::Status(s)) => Outcome::Status(s.code.to_dubbo_status()),
                            Err(e) => Outcome::Lost(e.to_string()),
                        };
                        (token, outcome)
                    });
                    if drop_after_send {
                        drop_after_send = false;
                        tally.disconnects += 1;
                        tally.abandoned += calls.len() as u64;
                        calls.abort_all();
                        break;
                    }
                }
                _ = disconnect.notified() => drop_after_send = true,
            }
        }
    }
}

/// Counts one call's end.
fn count(id: u32, shared: &Shared, tally: &mut Tally, token: &str, outcome: Outcome) {
    match outcome {
        Outcome::Ok => tally.ok += 1,
        Outcome::Misrouted(s) => {
            tally.misrouted += 1;
            tally.example(
                shared,
                format!("triple caller {id}: {token} answered with {s:?}"),
            );
        }
        Outcome::Status(s) => *tally.statuses.entry(s).or_default() += 1,
        Outcome::Lost(why) => {
            tally.never_answered += 1;
            tally.example(
                shared,
                format!("triple caller {id}: {token} never answered: {why}"),
            );
        }
    }
}

/// The Triple form of the Dubbo callers' calls (`echo`, one in eight `sleep`).
fn triple_call(token: &str, rng: &mut Rng, timeout: Duration) -> TripleCall {
    let call = if rng.below(8) == 0 {
        let ms = 20 + rng.below(281) as i32;
        TripleCall::new(INTERFACE, "sleep")
            .arg("java.lang.String", token)
            .and_then(|c| c.arg("int", &ms))
    } else {
        TripleCall::new(INTERFACE, "echo").arg("java.lang.String", token)
    };
    call.expect("a string argument serializes").timeout(timeout)
}
