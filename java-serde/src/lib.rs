//! One serde annotation for the Java value types a Dubbo interface carries — `java.time`,
//! `BigDecimal`, `BigInteger`, `UUID` — that works in every format:
//!
//! - the [`hessian2`](https://docs.rs/hessian2) and [`fastjson2`](https://docs.rs/fastjson2)
//!   crates write the Java type exactly as Java's hessian-lite and fastjson2 do, and read it
//!   back from Java's bytes;
//! - human-readable formats (serde_json, TOML, ...) see the text the mapped crate's own serde
//!   support writes (ISO-8601 dates, decimal strings, hyphenated UUIDs);
//! - other formats see a tuple of the value's numbers ([`Parts`]).
//!
//! So one DTO serves a Java provider in either serialization and a JSON API:
//!
//! ```
//! use chrono::NaiveDateTime;
//! use rust_decimal::Decimal;
//! use serde::{Deserialize, Serialize};
//!
//! #[derive(Serialize, Deserialize, Debug, PartialEq)]
//! #[serde(rename = "com.example.Order")]
//! struct Order {
//!     #[serde(with = "java_serde::rust_decimal")]
//!     amount: Decimal,
//!     #[serde(with = "java_serde::chrono::local_date_time")]
//!     placed: NaiveDateTime,
//! }
//!
//! let order = Order {
//!     amount: Decimal::new(123450, 2),
//!     placed: "2024-02-29T13:45:30".parse()?,
//! };
//! let json = serde_json::to_string(&order)?;
//! assert_eq!(json, r#"{"amount":"1234.50","placed":"2024-02-29T13:45:30"}"#);
//! assert_eq!(serde_json::from_str::<Order>(&json)?, order);
//! // hessian2::to_vec(&order) writes a java.math.BigDecimal and a
//! // java.time.LocalDateTime as hessian-lite does; fastjson2::to_vec(&order) as fastjson2 does.
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! | Java | Rust | feature | `#[serde(with = ...)]` |
//! |---|---|---|---|
//! | `java.time.LocalDate` | `chrono::NaiveDate` | `chrono` | `java_serde::chrono::local_date` |
//! | `java.time.LocalTime` | `chrono::NaiveTime` | `chrono` | `java_serde::chrono::local_time` |
//! | `java.time.LocalDateTime` | `chrono::NaiveDateTime` | `chrono` | `java_serde::chrono::local_date_time` |
//! | `java.time.Instant` | `chrono::DateTime<Utc>` | `chrono` | `java_serde::chrono::instant` |
//! | `java.time.OffsetDateTime` | `chrono::DateTime<FixedOffset>` | `chrono` | `java_serde::chrono::offset_date_time` |
//! | `java.time.Duration` | `chrono::TimeDelta` | `chrono` | `java_serde::chrono::duration` |
//! | `java.time.LocalDate`, `LocalTime`, `LocalDateTime`, `Instant` | `time::Date`, `Time`, `PrimitiveDateTime`, `OffsetDateTime` | `time` | `java_serde::time::local_date`, ... |
//! | `java.time.OffsetDateTime` | `time::OffsetDateTime` | `time` | `java_serde::time::offset_date_time` |
//! | `java.time.Duration` | `time::Duration` | `time` | `java_serde::time::duration` |
//! | `java.math.BigDecimal` | `rust_decimal::Decimal` | `rust_decimal` | `java_serde::rust_decimal` |
//! | `java.math.BigDecimal` | `bigdecimal::BigDecimal` (any size and scale) | `bigdecimal` | `java_serde::bigdecimal` |
//! | `java.util.UUID` | `uuid::Uuid` | `uuid` | `java_serde::uuid` |
//! | `java.math.BigInteger` | `num_bigint::BigInt` | `num-bigint` | `java_serde::num_bigint` |
//! | `java.math.BigInteger` | `num_bigint::BigUint` | `num-bigint` | `java_serde::num_bigint::biguint` |
//!
//! Each module has an `option` submodule for an `Option` field (`None` is Java's `null`):
//! `#[serde(with = "java_serde::chrono::local_date::option")] due: Option<NaiveDate>`.
//!
//! # For format authors
//!
//! A value is a newtype struct named [`JavaType::newtype_name`] (`$java::java.time.LocalDate`)
//! around a tuple of its parts. A format that wants to write the Java type recognises the name
//! in `serialize_newtype_struct`, takes the parts back with [`Parts::capture`] and writes them
//! in its own form; in `deserialize_newtype_struct` it reads its form and gives the parts to the
//! visitor with [`Parts::visit`]. A format that does nothing reads back what it wrote.

#![forbid(unsafe_code)]

#[cfg(feature = "bigdecimal")]
pub mod bigdecimal;
mod capture;
#[cfg(feature = "chrono")]
pub mod chrono;
mod convert;
pub mod decimal;
mod java_type;
#[cfg(feature = "num-bigint")]
pub mod num_bigint;
mod parts;
#[cfg(feature = "rust_decimal")]
pub mod rust_decimal;
mod scalar;
#[cfg(any(feature = "chrono", feature = "time"))]
mod signed_duration;
pub mod text;
#[cfg(feature = "time")]
pub mod time;
#[cfg(feature = "uuid")]
pub mod uuid;
#[cfg(any(
    feature = "chrono",
    feature = "uuid",
    feature = "rust_decimal",
    feature = "num-bigint",
    feature = "bigdecimal",
    feature = "time"
))]
mod with;

pub use convert::ConvertError;
pub use java_type::{JavaType, NAME_PREFIX};
pub use parts::{Date, OffsetSeconds, Parts, PartsError, PartsSeed, Time};
