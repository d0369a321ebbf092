//! The OrderService of the interop project (`interop/dubbo-java`, `provider --orders`): a DTO
//! of `java.time`, `BigDecimal`, `UUID` and an enum, as Rust types (chrono, rust_decimal,
//! uuid) that travel as those Java types through the `java_serde` modules in either
//! serialization, and the service in Rust, which checks what it receives as the Java one
//! does (`OrderService.java`).

use std::collections::BTreeSet;
use std::sync::{Arc, Mutex};

use chrono::{DateTime, NaiveDate, NaiveDateTime, Utc};
use dubbo_rpc::server::{HandlerError, Reply, Service};
use rust_decimal::Decimal;
use serde::{Deserialize, Serialize};
use uuid::Uuid;

use super::VERSION;

/// The interface the Java provider exports with `--orders`.
pub const ORDER_SERVICE: &str = "io.github.hessianrs.demo.OrderService";
/// The Java class of the DTO.
pub const ORDER_CLASS: &str = "io.github.hessianrs.demo.Order";

/// `io.github.hessianrs.demo.OrderStatus`: Java reads and writes an enum by its constant's name.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename = "io.github.hessianrs.demo.OrderStatus")]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum OrderStatus {
    New,
    Paid,
    Shipped,
}

/// `io.github.hessianrs.demo.Order` as a Rust service holds it: one struct for both
/// serializations, each Java-typed field annotated once with a `java_serde` module, which
/// hessian2 writes as hessian-lite does and fastjson2 as fastjson2 does.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename = "io.github.hessianrs.demo.Order")]
pub struct Order {
    #[serde(with = "java_serde::rust_decimal")]
    pub amount: Decimal,
    #[serde(with = "java_serde::chrono::local_date")]
    pub due: NaiveDate,
    #[serde(with = "java_serde::uuid")]
    pub id: Uuid,
    #[serde(with = "java_serde::chrono::instant")]
    pub paid: DateTime<Utc>,
    #[serde(with = "java_serde::chrono::local_date_time")]
    pub placed: NaiveDateTime,
    pub status: OrderStatus,
}

/// `OrderService.SENT`: nanoseconds in both times, a scale of 2, both UUID halves set.
pub fn sent() -> Order {
    Order {
        amount: Decimal::new(123_450, 2),
        due: NaiveDate::from_ymd_opt(2024, 12, 31).unwrap(),
        id: Uuid::parse_str("123e4567-e89b-12d3-a456-426614174000").unwrap(),
        paid: DateTime::from_timestamp(1_700_000_000, 5_000).unwrap(),
        placed: NaiveDate::from_ymd_opt(2024, 2, 29)
            .unwrap()
            .and_hms_nano_opt(13, 45, 30, 123_456_789)
            .unwrap(),
        status: OrderStatus::New,
    }
}

/// `OrderService.advanced(sent())`, written out rather than computed, so that the Rust side
/// states what Java must answer: every field changed (a pass-through cannot pass).
pub fn advanced() -> Order {
    Order {
        amount: Decimal::new(123_550, 2),
        due: NaiveDate::from_ymd_opt(2025, 1, 1).unwrap(),
        id: Uuid::parse_str("123e4567-e89b-12d3-a456-426614174001").unwrap(),
        paid: DateTime::from_timestamp(1_700_000_001, 5_000).unwrap(),
        placed: NaiveDate::from_ymd_opt(2024, 3, 1)
            .unwrap()
            .and_hms_nano_opt(13, 45, 30, 123_456_789)
            .unwrap(),
        status: OrderStatus::Paid,
    }
}

/// The fields of `got` that differ from `expected` (`"amount: got 1234.5, expected 1234.50"`,
/// the amount with its scale), empty when none.
pub fn mismatches(got: &Order, expected: &Order) -> Vec<String> {
    let mut out = Vec::new();
    let mut field = |name: &str, got: String, expected: String| {
        if got != expected {
            out.push(format!("{name}: got {got}, expected {expected}"));
        }
    };
    field("id", got.id.to_string(), expected.id.to_string());
    field(
        "placed",
        got.placed.to_string(),
        expected.placed.to_string(),
    );
    field("due", got.due.to_string(), expected.due.to_string());
    field("paid", got.paid.to_rfc3339(), expected.paid.to_rfc3339());
    field(
        "amount",
        got.amount.to_string(),
        expected.amount.to_string(),
    );
    field(
        "status",
        format!("{:?}", got.status),
        format!("{:?}", expected.status),
    );
    out
}

/// Asserts `got` is [`advanced`], field by field; `what` names the call in the message.
pub fn assert_advanced(got: &Order, what: &str) {
    let bad = mismatches(got, &advanced());
    assert!(bad.is_empty(), "{what}: {bad:#?}");
}

/// The OrderService in Rust: `advance` refuses (`IllegalArgumentException` naming the fields,
/// as the Java one) an order other than [`sent`], and answers [`advanced`] otherwise; it records
/// the serialization id of every call in `seen`.
pub fn order_service(seen: Arc<Mutex<BTreeSet<u8>>>) -> Service {
    Service::new(ORDER_SERVICE)
        .version(VERSION)
        .method("advance", move |call| {
            seen.lock()
                .unwrap()
                .insert(call.format.serialization().id());
            async move { advance(call) }
        })
}

fn advance(call: dubbo_rpc::server::Call) -> Result<Reply, HandlerError> {
    let (got,) = call.args::<(Order,)>()?;
    let bad = mismatches(&got, &sent());
    if !bad.is_empty() {
        return Err(HandlerError::exception(
            "java.lang.IllegalArgumentException",
            format!("order mismatch: {}", bad.join("; ")),
        ));
    }
    call.typed_reply(&advanced())
}
