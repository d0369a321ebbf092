//! The Java classes `io.github.hessianrs.interop.model.User`, `Mix` and `Node` as Rust types, and
//! the sample values of the interop vectors, the benches and the cross-language peers.
//!
//! They mirror `interop/java/src/main/java/io/github/hessianrs/interop/model/{User,Mix,Node}.java`:
//! the serde name is the Java class, the field names are Java's, and the fields stand in the
//! order hessian-lite writes them (the non-`java.lang` fields, then the rest, each group in
//! reverse declaration order; see the `hessian2::ser` docs), so that encoding a value gives
//! Java's bytes. hessian2's tests (`tests/serde_java.rs`, `tests/serde_de.rs`), the benches
//! (`benches/benches/hessian2.rs`) and the fuzz target `typed_decode` use these; a test that needs
//! another shape of the same class (borrowed fields, missing ones) declares it locally.
#![allow(non_snake_case)]

pub mod borrowed;
#[cfg(feature = "call")]
pub mod call;
pub mod jsonb;

use std::fmt;

use hessian2::types::{Date, JavaArray};
use serde::de::{self, MapAccess, Visitor};
use serde::ser::SerializeMap;
use serde::{Deserialize, Serialize};

/// `User { long id; String name; int age; String email; boolean active; Date created; }`:
/// `created` is its only non-`java.lang` field, so hessian-lite writes `created` first and then
/// the others in reverse.
#[derive(Serialize, Deserialize, Debug, Clone, PartialEq)]
#[serde(rename = "io.github.hessianrs.interop.model.User")]
pub struct User {
    pub created: Option<Date>,
    pub active: bool,
    pub email: Option<String>,
    pub age: i32,
    pub name: Option<String>,
    pub id: i64,
}

// Java's `User[]`.
hessian2::array_element!(User = "[io.github.hessianrs.interop.model.User");

/// Java's `Cases.user(1, "Alice")` (`pojo_user.bin`, 112 bytes; the peers' `user`):
/// `User(id=1, name="Alice", age=31, email="alice@example.com", active=true,
/// created=Date(1700000060000))`.
pub fn alice() -> User {
    User {
        created: Some(Date(1_700_000_060_000)),
        active: true,
        email: Some("alice@example.com".into()),
        age: 31,
        name: Some("Alice".into()),
        id: 1,
    }
}

/// The struct of dubbo-go-hessian2's benchmark, `Mix { int A; String B; Date CA; long CB;
/// String CC; double[] CD; Map<String, Object> D; }`, written as D, CD, CA, CC, CB, B, A.
#[derive(Serialize, Deserialize, Debug, Clone, PartialEq)]
#[serde(rename = "io.github.hessianrs.interop.model.Mix")]
pub struct Mix {
    pub D: Option<MixD>,
    #[serde(with = "hessian2::types::java_array")]
    pub CD: Vec<f64>,
    pub CA: Date,
    pub CC: String,
    pub CB: i64,
    pub B: String,
    pub A: i32,
}

/// `Mix.D`, a Java `HashMap<String, Object>` holding `"A"` (an `Integer`), `"floats"` (a
/// `double[]`) and, when present, `"m"` (a `Mix`): a map on the wire, its entries in the order
/// Java's `HashMap` iterates them (`A`, `floats`, `m`).
pub type MixD = MixDOf<JavaArray<f64>, Mix>;

/// `Mix.D` for any wire format: `F` is how the format writes a `double[]` held as `Object`, `M`
/// its `Mix` ([`MixD`] for Hessian, [`jsonb::MixD`] for fastjson2 JSONB).
#[derive(Debug, Clone, PartialEq)]
pub struct MixDOf<F, M> {
    pub a: i32,
    pub floats: F,
    pub m: Option<Box<M>>,
}

impl<F: Serialize, M: Serialize> Serialize for MixDOf<F, M> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut map = s.serialize_map(Some(2 + usize::from(self.m.is_some())))?;
        map.serialize_entry("A", &self.a)?;
        map.serialize_entry("floats", &self.floats)?;
        if let Some(m) = &self.m {
            map.serialize_entry("m", m)?;
        }
        map.end()
    }
}

impl<'de, F: Deserialize<'de>, M: Deserialize<'de>> Deserialize<'de> for MixDOf<F, M> {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        #[derive(Deserialize)]
        enum Key {
            A,
            #[serde(rename = "floats")]
            Floats,
            #[serde(rename = "m")]
            M,
        }
        struct V<F, M>(std::marker::PhantomData<(F, M)>);
        impl<'de, F: Deserialize<'de>, M: Deserialize<'de>> Visitor<'de> for V<F, M> {
            type Value = MixDOf<F, M>;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("the map Mix.D")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
                let (mut a, mut floats, mut m) = (None, None, None);
                while let Some(key) = map.next_key::<Key>()? {
                    match key {
                        Key::A => a = Some(map.next_value()?),
                        Key::Floats => floats = Some(map.next_value()?),
                        Key::M => m = Some(map.next_value()?),
                    }
                }
                Ok(MixDOf {
                    a: a.ok_or_else(|| de::Error::missing_field("A"))?,
                    floats: floats.ok_or_else(|| de::Error::missing_field("floats"))?,
                    m,
                })
            }
        }
        d.deserialize_map(V(std::marker::PhantomData))
    }
}

/// Java's `Cases.mix(false)` (`mix_no_self_ref.bin`): `Mix{A=97 ('a'), B="hello",
/// CA=Date(1700000000000), CB=1<<40, CC="world", CD=[1,2,3], D={"A": 97, "floats": CD}}`.
/// (Java writes `CD` as a back-reference to the array in `D`; this value, having no identity,
/// writes it again.)
pub fn mix_no_self_ref() -> Mix {
    let floats = vec![1.0, 2.0, 3.0];
    Mix {
        D: Some(MixD {
            a: 97,
            floats: JavaArray(floats.clone()),
            m: None,
        }),
        CD: floats,
        CA: Date(1_700_000_000_000),
        CC: "world".into(),
        CB: 1 << 40,
        B: "hello".into(),
        A: 97,
    }
}

/// The benches' `mix` (169 bytes): the Mix of `Cases.mix(true)` and of the peers, except that
/// `D["m"]`, there the Mix itself (a cycle, which a Rust value cannot hold), is a second Mix,
/// equal to the first but without `D`.
pub fn mix() -> Mix {
    let inner = Mix {
        D: None,
        ..mix_no_self_ref()
    };
    Mix {
        D: Some(MixD {
            a: 97,
            floats: JavaArray(inner.CD.clone()),
            m: Some(Box::new(inner.clone())),
        }),
        ..inner
    }
}

/// `Node { int value; Node next; }`, written as `next, value`: Java's vectors link nodes into
/// cycles (`pojo_node_self_cycle`, `pojo_node_two_cycle`), which a Rust value cannot hold, so
/// decoding those is an error.
#[derive(Serialize, Deserialize, Debug, Clone, PartialEq)]
#[serde(rename = "io.github.hessianrs.interop.model.Node")]
pub struct Node {
    pub next: Option<Box<Node>>,
    pub value: i32,
}

/// The benches' generated users (not a Java vector): user `i` of a [`UserPage`].
pub fn user(i: i64) -> User {
    User {
        created: Some(Date(1_700_000_000_000 + i * 1_000)),
        active: i % 3 != 0,
        email: Some(format!("user{i}@example.com")),
        age: 20 + (i % 50) as i32,
        name: Some(format!("User {i}")),
        id: 100_000 + i,
    }
}

/// A page of users: the benches' "1 KiB" and "64 KiB" payloads. Not one of interop/java's
/// classes (no Java peer measures it), but a shape Dubbo services return.
#[derive(Serialize, Deserialize, Debug, Clone, PartialEq)]
#[serde(rename = "io.github.hessianrs.bench.UserPage")]
pub struct UserPage {
    pub users: Vec<User>,
    pub next: Option<String>,
    pub total: i64,
}

/// A page of `n` users ([`user`] 0 to n-1).
pub fn page(n: usize) -> UserPage {
    UserPage {
        users: (0..n as i64).map(user).collect(),
        next: Some("cursor-0001".into()),
        total: 1_000_000,
    }
}
