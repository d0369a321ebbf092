//! Serialization ids, the low five bits of the header's flag byte.
//!
//! The ids are those of Java's `org.apache.dubbo.common.serialize.Constants`
//! (`HESSIAN2_SERIALIZATION_ID = 2`, ...) and the names are the extension names Dubbo's SPI
//! files register them under (`serialization=hessian2` in a URL). Dubbo 2.7 and 3.x use
//! Hessian2 by default on the dubbo protocol; Dubbo 3.2+ prefers fastjson2 (23) when both
//! sides have it. This crate reads and writes Hessian2 and fastjson2 bodies
//! ([`BodyFormat`](crate::BodyFormat)); the frame layer carries any id.

use std::fmt;

/// A serialization id.
///
/// [`Serialization::from_id`] never yields `Unknown` for a known id; ids the crate does not
/// know are kept as [`Serialization::Unknown`], so every `u8` round-trips.
///
/// The `Default` is [`Serialization::Hessian2`], the dubbo protocol's default.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
#[non_exhaustive]
pub enum Serialization {
    /// 2, `hessian2`: Dubbo's default, Alibaba's hessian-lite.
    #[default]
    Hessian2,
    /// 3, `java`: JDK serialization with Dubbo's own stream header.
    Java,
    /// 4, `compactedjava`: JDK serialization with compacted class descriptors.
    CompactedJava,
    /// 6, `fastjson`.
    Fastjson,
    /// 7, `nativejava`: plain JDK `ObjectOutputStream`.
    NativeJava,
    /// 8, `kryo`.
    Kryo,
    /// 9, `fst`.
    Fst,
    /// 10, `native-hessian`: Caucho's own Hessian 2 (not hessian-lite).
    NativeHessian,
    /// 11, `avro`.
    Avro,
    /// 12, `protostuff`.
    Protostuff,
    /// 16, `gson`.
    Gson,
    /// 18, `jackson`.
    Jackson,
    /// 21, `protobuf-json`.
    ProtobufJson,
    /// 22, `protobuf`.
    Protobuf,
    /// 23, `fastjson2`: preferred by Dubbo 3.2+.
    Fastjson2,
    /// 25, `kryo2`: the optimized Kryo.
    Kryo2,
    /// 27, `msgpack`.
    Msgpack,
    /// 28, `fury`.
    Fury,
    /// 31, Java's `CUSTOM_MESSAGE_PACK_ID`.
    CustomMessagePack,
    /// Any other id, kept as is.
    Unknown(u8),
}

impl Serialization {
    /// Every serialization id Dubbo defines, in id order.
    pub const KNOWN: [Serialization; 19] = [
        Serialization::Hessian2,
        Serialization::Java,
        Serialization::CompactedJava,
        Serialization::Fastjson,
        Serialization::NativeJava,
        Serialization::Kryo,
        Serialization::Fst,
        Serialization::NativeHessian,
        Serialization::Avro,
        Serialization::Protostuff,
        Serialization::Gson,
        Serialization::Jackson,
        Serialization::ProtobufJson,
        Serialization::Protobuf,
        Serialization::Fastjson2,
        Serialization::Kryo2,
        Serialization::Msgpack,
        Serialization::Fury,
        Serialization::CustomMessagePack,
    ];

    /// The serialization for an id.
    pub const fn from_id(id: u8) -> Serialization {
        match id {
            2 => Serialization::Hessian2,
            3 => Serialization::Java,
            4 => Serialization::CompactedJava,
            6 => Serialization::Fastjson,
            7 => Serialization::NativeJava,
            8 => Serialization::Kryo,
            9 => Serialization::Fst,
            10 => Serialization::NativeHessian,
            11 => Serialization::Avro,
            12 => Serialization::Protostuff,
            16 => Serialization::Gson,
            18 => Serialization::Jackson,
            21 => Serialization::ProtobufJson,
            22 => Serialization::Protobuf,
            23 => Serialization::Fastjson2,
            25 => Serialization::Kryo2,
            27 => Serialization::Msgpack,
            28 => Serialization::Fury,
            31 => Serialization::CustomMessagePack,
            other => Serialization::Unknown(other),
        }
    }

    /// The id of this serialization. Only the low five bits fit in a header.
    pub const fn id(self) -> u8 {
        match self {
            Serialization::Hessian2 => 2,
            Serialization::Java => 3,
            Serialization::CompactedJava => 4,
            Serialization::Fastjson => 6,
            Serialization::NativeJava => 7,
            Serialization::Kryo => 8,
            Serialization::Fst => 9,
            Serialization::NativeHessian => 10,
            Serialization::Avro => 11,
            Serialization::Protostuff => 12,
            Serialization::Gson => 16,
            Serialization::Jackson => 18,
            Serialization::ProtobufJson => 21,
            Serialization::Protobuf => 22,
            Serialization::Fastjson2 => 23,
            Serialization::Kryo2 => 25,
            Serialization::Msgpack => 27,
            Serialization::Fury => 28,
            Serialization::CustomMessagePack => 31,
            Serialization::Unknown(id) => id,
        }
    }

    /// Dubbo's extension name (`"hessian2"`, `"fastjson2"`, ...), `None` when unknown or
    /// when Dubbo registers none (`CUSTOM_MESSAGE_PACK_ID`).
    pub const fn name(self) -> Option<&'static str> {
        Some(match Serialization::from_id(self.id()) {
            Serialization::Hessian2 => "hessian2",
            Serialization::Java => "java",
            Serialization::CompactedJava => "compactedjava",
            Serialization::Fastjson => "fastjson",
            Serialization::NativeJava => "nativejava",
            Serialization::Kryo => "kryo",
            Serialization::Fst => "fst",
            Serialization::NativeHessian => "native-hessian",
            Serialization::Avro => "avro",
            Serialization::Protostuff => "protostuff",
            Serialization::Gson => "gson",
            Serialization::Jackson => "jackson",
            Serialization::ProtobufJson => "protobuf-json",
            Serialization::Protobuf => "protobuf",
            Serialization::Fastjson2 => "fastjson2",
            Serialization::Kryo2 => "kryo2",
            Serialization::Msgpack => "msgpack",
            Serialization::Fury => "fury",
            Serialization::CustomMessagePack | Serialization::Unknown(_) => return None,
        })
    }

    /// The serialization Dubbo registers under `name` (`serialization=...` in a URL).
    pub fn from_name(name: &str) -> Option<Serialization> {
        Serialization::KNOWN
            .into_iter()
            .find(|s| s.name() == Some(name))
    }
}

impl From<u8> for Serialization {
    fn from(id: u8) -> Serialization {
        Serialization::from_id(id)
    }
}

impl From<Serialization> for u8 {
    fn from(s: Serialization) -> u8 {
        s.id()
    }
}

impl fmt::Display for Serialization {
    /// `hessian2 (2)`, `unknown serialization (5)`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.name() {
            Some(name) => write!(f, "{name} ({})", self.id()),
            None if matches!(self, Serialization::CustomMessagePack) => {
                write!(f, "custom message pack ({})", self.id())
            }
            None => write!(f, "unknown serialization ({})", self.id()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn all_256_ids_round_trip() {
        for id in 0..=u8::MAX {
            let s = Serialization::from(id);
            assert_eq!(u8::from(s), id);
            assert_eq!(
                matches!(s, Serialization::Unknown(_)),
                !Serialization::KNOWN.contains(&s)
            );
        }
    }

    #[test]
    fn known_ids_fit_in_five_bits_and_names_round_trip() {
        for s in Serialization::KNOWN {
            assert!(s.id() <= 0x1f);
            if let Some(name) = s.name() {
                assert_eq!(Serialization::from_name(name), Some(s));
            }
        }
        assert_eq!(Serialization::Hessian2.id(), 2);
        assert_eq!(Serialization::Fastjson2.id(), 23);
        assert_eq!(
            Serialization::from_name("hessian2"),
            Some(Serialization::Hessian2)
        );
        assert_eq!(Serialization::from_name("nope"), None);
        assert_eq!(Serialization::default(), Serialization::Hessian2);
        assert_eq!(Serialization::Hessian2.to_string(), "hessian2 (2)");
        assert_eq!(
            Serialization::from(5).to_string(),
            "unknown serialization (5)"
        );
    }
}
