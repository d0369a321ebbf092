//! Java's enum collections: `java.util.EnumSet` and `java.util.EnumMap`.
//!
//! fastjson2 (2.0.52 and 2.0.56, Dubbo's writer features) writes an `EnumSet` as an array typed
//! with the set's own class (`java.util.RegularEnumSet`) whose constants each carry their
//! enum's class name, and an `EnumMap` as an object typed `java.util.EnumMap` whose keys do
//! (vectors `enum_set`, `enum_map`). The enum's class travels with the constants only, so an
//! empty `EnumSet` carries none: Java writes one, but fastjson2 cannot read it back
//! ("Collection is empty"). These types write exactly Java's bytes, the empty set included.

use std::fmt;
use std::marker::PhantomData;

use serde::de::{Deserialize, Deserializer, MapAccess, SeqAccess, Visitor};
use serde::ser::{Serialize, Serializer};

use super::named::{Named, NamedValue};

/// The class fastjson2 writes for an `EnumSet` of an enum of up to 64 constants (Java's
/// `JumboEnumSet`, for larger enums, reads back from it all the same).
const REGULAR_ENUM_SET: &str = "java.util.RegularEnumSet";
const ENUM_MAP: &str = "java.util.EnumMap";

/// A `java.util.EnumSet` of constants of the Rust enum `E` (its unit variants named as the
/// Java constants), with the Java enum's class name; the same shape as
/// `hessian2::types::EnumSet`.
///
/// ```
/// use fastjson2::types::EnumSet;
/// use serde::{Deserialize, Serialize};
///
/// #[derive(Serialize, Deserialize, Debug, PartialEq)]
/// #[serde(rename_all = "UPPERCASE")]
/// enum Color { Red, Blue }
///
/// let set = EnumSet { class: "com.example.Color".into(), constants: vec![Color::Red, Color::Blue] };
/// let bytes = fastjson2::to_vec(&set)?;
/// assert!(bytes.starts_with(b"\x92\x61java.util.RegularEnumSet"));
/// assert_eq!(fastjson2::from_slice::<EnumSet<Color>>(&bytes)?, set);
/// # Ok::<(), fastjson2::Error>(())
/// ```
///
/// In human-readable formats (serde_json) it is `{"class": ..., "constants": [...]}`.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct EnumSet<E> {
    /// The Java enum class; read from the first constant that names it (`""` for an empty set).
    pub class: String,
    /// The constants, in Java's order (the enum's declaration order).
    pub constants: Vec<E>,
}

/// The human-readable form of [`EnumSet`].
#[derive(serde::Serialize, serde::Deserialize)]
struct ReadableSet<N, C> {
    class: N,
    constants: C,
}

/// The human-readable form of [`EnumMap`].
#[derive(serde::Serialize, serde::Deserialize)]
struct ReadableMap<N, C> {
    class: N,
    entries: C,
}

impl<E: Serialize> Serialize for EnumSet<E> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        if s.is_human_readable() {
            return ReadableSet {
                class: &self.class,
                constants: &self.constants,
            }
            .serialize(s);
        }
        Named(REGULAR_ENUM_SET, &NamedItems(&self.class, &self.constants)).serialize(s)
    }
}

/// Constants each after their class name.
struct NamedItems<'a, E>(&'a str, &'a [E]);

impl<E: Serialize> Serialize for NamedItems<'_, E> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_seq(self.1.iter().map(|c| Named(self.0, c)))
    }
}

impl<'de, E: Deserialize<'de>> Deserialize<'de> for EnumSet<E> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        if d.is_human_readable() {
            let r = ReadableSet::<String, Vec<E>>::deserialize(d)?;
            return Ok(EnumSet {
                class: r.class,
                constants: r.constants,
            });
        }
        let items = NamedValue::<Vec<NamedValue<E>>>::deserialize(d)?.value;
        let mut class = String::new();
        let mut constants = Vec::with_capacity(items.len());
        for item in items {
            if class.is_empty() {
                class = item.class;
            }
            constants.push(item.value);
        }
        Ok(EnumSet { class, constants })
    }
}

/// A `java.util.EnumMap` from constants of the Rust enum `K` to `V`, with the Java enum's
/// class name. The entries stay in the order they travel in (Java's: the keys' declaration
/// order), so a map read from Java is written back byte for byte.
///
/// ```
/// use fastjson2::types::EnumMap;
/// use serde::{Deserialize, Serialize};
///
/// #[derive(Serialize, Deserialize, Debug, PartialEq)]
/// #[serde(rename_all = "UPPERCASE")]
/// enum Color { Red, Blue }
///
/// let map = EnumMap { class: "com.example.Color".into(), entries: vec![(Color::Red, 1), (Color::Blue, 2)] };
/// let bytes = fastjson2::to_vec(&map)?;
/// assert!(bytes.starts_with(b"\x92\x5ajava.util.EnumMap"));
/// assert_eq!(fastjson2::from_slice::<EnumMap<Color, i32>>(&bytes)?, map);
/// # Ok::<(), fastjson2::Error>(())
/// ```
///
/// In human-readable formats (serde_json) it is `{"class": ..., "entries": [[key, value], ...]}`.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct EnumMap<K, V> {
    /// The Java enum class of the keys; read from the first key that names it.
    pub class: String,
    /// The entries, in the order they travel in.
    pub entries: Vec<(K, V)>,
}

impl<K: Serialize, V: Serialize> Serialize for EnumMap<K, V> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        if s.is_human_readable() {
            return ReadableMap {
                class: &self.class,
                entries: &self.entries,
            }
            .serialize(s);
        }
        Named(ENUM_MAP, &NamedKeys(&self.class, &self.entries)).serialize(s)
    }
}

/// Entries whose keys each come after their class name.
struct NamedKeys<'a, K, V>(&'a str, &'a [(K, V)]);

impl<K: Serialize, V: Serialize> Serialize for NamedKeys<'_, K, V> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_map(self.1.iter().map(|(k, v)| (Named(self.0, k), v)))
    }
}

impl<'de, K: Deserialize<'de>, V: Deserialize<'de>> Deserialize<'de> for EnumMap<K, V> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        if d.is_human_readable() {
            let r = ReadableMap::<String, Vec<(K, V)>>::deserialize(d)?;
            return Ok(EnumMap {
                class: r.class,
                entries: r.entries,
            });
        }
        let NamedEntries { class, entries } =
            NamedValue::<NamedEntries<K, V>>::deserialize(d)?.value;
        Ok(EnumMap { class, entries })
    }
}

/// An object's entries in order, with the class name of the first key that has one.
struct NamedEntries<K, V> {
    class: String,
    entries: Vec<(K, V)>,
}

impl<'de, K: Deserialize<'de>, V: Deserialize<'de>> Deserialize<'de> for NamedEntries<K, V> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_map(EntriesVisitor(PhantomData))
    }
}

struct EntriesVisitor<K, V>(PhantomData<(K, V)>);

impl<'de, K: Deserialize<'de>, V: Deserialize<'de>> Visitor<'de> for EntriesVisitor<K, V> {
    type Value = NamedEntries<K, V>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("an EnumMap's entries")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        let mut class = String::new();
        // Never more than the input claims room for (`size_hint` is bounded by the bytes left).
        let mut entries = Vec::with_capacity(map.size_hint().unwrap_or(0).min(64));
        while let Some(key) = map.next_key::<NamedValue<K>>()? {
            if class.is_empty() {
                class = key.class;
            }
            entries.push((key.value, map.next_value()?));
        }
        Ok(NamedEntries { class, entries })
    }

    /// Other formats: the entries as a sequence of pairs.
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
        let mut class = String::new();
        let mut entries = Vec::new();
        while let Some((key, value)) = seq.next_element::<(NamedValue<K>, V)>()? {
            if class.is_empty() {
                class = key.class;
            }
            entries.push((key.value, value));
        }
        Ok(NamedEntries { class, entries })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(serde::Serialize, serde::Deserialize, Debug, PartialEq)]
    #[serde(rename_all = "UPPERCASE")]
    enum Color {
        Red,
    }

    /// The bytes fastjson2 2.0.52 wrote for `EnumSet.noneOf(Color.class)` (it cannot read them
    /// back, so they are no vector): the set's class and an empty array.
    #[test]
    fn an_empty_set_is_what_java_writes() {
        let set = EnumSet::<Color> {
            class: "io.github.hessianrs.interop.model.Color".into(),
            constants: vec![],
        };
        let mut java = vec![0x92, 0x61];
        java.extend_from_slice(b"java.util.RegularEnumSet");
        java.extend_from_slice(&[0x00, 0x94]);
        assert_eq!(crate::to_vec(&set).unwrap(), java);
        let back: EnumSet<Color> = crate::from_slice(&java).unwrap();
        assert_eq!((back.class.as_str(), back.constants.len()), ("", 0));
    }

    #[test]
    fn serde_json_sees_class_and_constants() {
        let set = EnumSet {
            class: "C".into(),
            constants: vec![Color::Red],
        };
        let json = serde_json::to_string(&set).unwrap();
        assert_eq!(json, r#"{"class":"C","constants":["RED"]}"#);
        assert_eq!(serde_json::from_str::<EnumSet<Color>>(&json).unwrap(), set);
        let map = EnumMap {
            class: "C".into(),
            entries: vec![(Color::Red, 1)],
        };
        let json = serde_json::to_string(&map).unwrap();
        assert_eq!(json, r#"{"class":"C","entries":[["RED",1]]}"#);
        assert_eq!(
            serde_json::from_str::<EnumMap<Color, i32>>(&json).unwrap(),
            map
        );
    }
}
