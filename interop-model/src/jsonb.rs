//! The same Java classes as fastjson2 JSONB writes them with Dubbo's features
//! (`interop/fastjson2-java`): fields in name order (fastjson2's `FieldBased`), `null` and
//! `false`/`0` `int`/`long`/`boolean` fields left out (`NotWriteDefaultValue`), dates as
//! [`fastjson2::types::Date`]. Encoding [`alice`] and [`mix`] gives Java's exact bytes
//! (`fastjson2/tests/vectors/user.bin`, `mix.bin`).
#![allow(non_snake_case)]

use fastjson2::types::Date;
use serde::{Deserialize, Serialize};

fn is_false(v: &bool) -> bool {
    !*v
}

fn is_zero_i32(v: &i32) -> bool {
    *v == 0
}

fn is_zero_i64(v: &i64) -> bool {
    *v == 0
}

/// `User { long id; String name; int age; String email; boolean active; Date created; }`.
#[derive(Serialize, Deserialize, Debug, Clone, PartialEq)]
#[serde(rename = "io.github.hessianrs.interop.model.User")]
pub struct User {
    #[serde(default, skip_serializing_if = "is_false")]
    pub active: bool,
    #[serde(default, skip_serializing_if = "is_zero_i32")]
    pub age: i32,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub created: Option<Date>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub email: Option<String>,
    #[serde(default, skip_serializing_if = "is_zero_i64")]
    pub id: i64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
}

/// Java's `Cases.user(1, "Alice")` (`user.bin`).
pub fn alice() -> User {
    User {
        active: true,
        age: 31,
        created: Some(Date(1_700_000_060_000)),
        email: Some("alice@example.com".into()),
        id: 1,
        name: Some("Alice".into()),
    }
}

/// A `double[]` held as `Object` (in `Mix.D`): Java writes its class name `[D` first.
#[derive(Serialize, Deserialize, Debug, Clone, PartialEq)]
#[serde(rename = "[D")]
pub struct DoubleArray(pub Vec<f64>);

/// `Mix { int A; String B; Date CA; long CB; String CC; double[] CD; Map<String, Object> D; }`.
#[derive(Serialize, Deserialize, Debug, Clone, PartialEq)]
#[serde(rename = "io.github.hessianrs.interop.model.Mix")]
pub struct Mix {
    pub A: i32,
    pub B: String,
    pub CA: Date,
    pub CB: i64,
    pub CC: String,
    pub CD: Vec<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub D: Option<MixD>,
}

/// `Mix.D` with the `double[]` as fastjson2 writes it.
pub type MixD = crate::MixDOf<DoubleArray, Mix>;

/// Java's `Cases.mix(false)` (`mix.bin`): `Mix{A=97, B="hello", CA=Date(1700000000000),
/// CB=1<<40, CC="world", CD=[1,2,3], D={"A": 97, "floats": CD}}`.
pub fn mix_no_self_ref() -> Mix {
    let floats = vec![1.0, 2.0, 3.0];
    Mix {
        A: 97,
        B: "hello".into(),
        CA: Date(1_700_000_000_000),
        CB: 1 << 40,
        CC: "world".into(),
        CD: floats.clone(),
        D: Some(MixD {
            a: 97,
            floats: DoubleArray(floats),
            m: None,
        }),
    }
}

/// The benches' `mix`: [`mix_no_self_ref`] whose `D["m"]` is a second Mix without `D` (Java's
/// `mix_self_ref` has the Mix itself there, a cycle written as a `$ref`).
pub fn mix() -> Mix {
    let inner = Mix {
        D: None,
        ..mix_no_self_ref()
    };
    Mix {
        D: Some(MixD {
            a: 97,
            floats: DoubleArray(inner.CD.clone()),
            m: Some(Box::new(inner.clone())),
        }),
        ..inner
    }
}
