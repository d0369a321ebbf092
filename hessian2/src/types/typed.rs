//! Lists and maps with a Java type name.

use std::fmt;
use std::marker::PhantomData;
use std::ops::{Deref, DerefMut};

use serde::de::{Deserialize, Deserializer, Visitor};
use serde::ser::{Serialize, Serializer};

/// A Java type name for [`Typed`]: implemented by the zero-sized markers that
/// [`java_type!`](crate::java_type) defines (see the ready-made ones in [`java`]).
pub trait JavaType {
    /// `"$hessian2::type:"` followed by the Java type name; built by `java_type!`.
    const TOKEN: &'static str;

    /// The Java type name.
    fn name() -> &'static str {
        &Self::TOKEN[super::token::TYPE.len()..]
    }
}

/// Defines a marker type naming a Java list or map type, for [`Typed`].
///
/// ```
/// use std::collections::BTreeMap;
/// use hessian2::types::Typed;
///
/// hessian2::java_type!(
///     /// `java.util.concurrent.ConcurrentSkipListMap`.
///     pub SkipListMap = "java.util.concurrent.ConcurrentSkipListMap"
/// );
///
/// let m: Typed<BTreeMap<String, i32>, SkipListMap> = Typed::new(BTreeMap::from([("a".into(), 1)]));
/// let bytes = hessian2::to_vec(&m)?;
/// assert_eq!(&bytes[..3], b"M\x30\x2a");
/// # Ok::<(), hessian2::Error>(())
/// ```
#[macro_export]
macro_rules! java_type {
    ($(#[$meta:meta])* $vis:vis $name:ident = $java:literal) => {
        $(#[$meta])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
        $vis struct $name;

        impl $crate::types::JavaType for $name {
            const TOKEN: &'static str = concat!("$hessian2::type:", $java);
        }
    };
}

/// Markers for the Java collection and array types that [`Typed`] most often needs.
pub mod java {
    crate::java_type!(
        /// `java.util.ArrayList` (what hessian-lite 3 writes for every `ArrayList`; this
        /// crate writes a Rust sequence that way by default with `PeerVersion::V3`).
        pub ArrayList = "java.util.ArrayList"
    );
    crate::java_type!(
        /// `java.util.LinkedList`.
        pub LinkedList = "java.util.LinkedList"
    );
    crate::java_type!(
        /// `java.util.HashSet`.
        pub HashSet = "java.util.HashSet"
    );
    crate::java_type!(
        /// `java.util.LinkedHashSet`.
        pub LinkedHashSet = "java.util.LinkedHashSet"
    );
    crate::java_type!(
        /// `java.util.TreeSet`.
        pub TreeSet = "java.util.TreeSet"
    );
    crate::java_type!(
        /// `java.util.TreeMap` (a typed `M` map).
        pub TreeMap = "java.util.TreeMap"
    );
    crate::java_type!(
        /// `java.util.LinkedHashMap` (a typed `M` map).
        pub LinkedHashMap = "java.util.LinkedHashMap"
    );
    crate::java_type!(
        /// `java.util.EnumMap` (a typed `M` map whose keys are enum constants, in the enum's
        /// order; hessian-lite reads it back as a `HashMap`).
        pub EnumMap = "java.util.EnumMap"
    );
    crate::java_type!(
        /// `java.util.concurrent.ConcurrentHashMap` (a typed `M` map).
        pub ConcurrentHashMap = "java.util.concurrent.ConcurrentHashMap"
    );
    crate::java_type!(
        /// `boolean[]`.
        pub BooleanArray = "[boolean"
    );
    crate::java_type!(
        /// `short[]`.
        pub ShortArray = "[short"
    );
    crate::java_type!(
        /// `int[]`.
        pub IntArray = "[int"
    );
    crate::java_type!(
        /// `long[]`.
        pub LongArray = "[long"
    );
    crate::java_type!(
        /// `float[]` (items are doubles on the wire).
        pub FloatArray = "[float"
    );
    crate::java_type!(
        /// `double[]`.
        pub DoubleArray = "[double"
    );
    crate::java_type!(
        /// `String[]`.
        pub StringArray = "[string"
    );
    crate::java_type!(
        /// `Object[]`.
        pub ObjectArray = "[object"
    );
    crate::java_type!(
        /// `java.util.Date[]`.
        pub DateArray = "[date"
    );
}

/// A list or map written with the Java type name `N` (a [`JavaType`] marker), e.g.
/// `Typed<Vec<String>, java::LinkedList>` or `Typed<BTreeMap<K, V>, java::TreeMap>`.
///
/// The value inside serializes as usual (a sequence becomes a list, a map a map); the type name
/// goes on that list or map. Reading ignores the type on the wire. Other serde formats see the
/// inner value only.
///
/// ```
/// use hessian2::types::{java, Typed};
///
/// let ints: Typed<Vec<i32>, java::IntArray> = Typed::new(vec![1, 2]);
/// // What Java writes for `new int[] {1, 2}`.
/// assert_eq!(hessian2::to_vec(&ints)?, b"\x72\x04[int\x91\x92");
/// let back: Typed<Vec<i32>, java::IntArray> = hessian2::from_slice(b"\x72\x04[int\x91\x92")?;
/// assert_eq!(back.value, vec![1, 2]);
/// # Ok::<(), hessian2::Error>(())
/// ```
pub struct Typed<T, N> {
    /// The list or map.
    pub value: T,
    _type: PhantomData<fn() -> N>,
}

impl<T, N> Typed<T, N> {
    /// Wraps `value`.
    pub const fn new(value: T) -> Self {
        Typed {
            value,
            _type: PhantomData,
        }
    }

    /// The value inside.
    pub fn into_inner(self) -> T {
        self.value
    }
}

impl<T, N> From<T> for Typed<T, N> {
    fn from(value: T) -> Self {
        Typed::new(value)
    }
}

impl<T, N> Deref for Typed<T, N> {
    type Target = T;
    fn deref(&self) -> &T {
        &self.value
    }
}

impl<T, N> DerefMut for Typed<T, N> {
    fn deref_mut(&mut self) -> &mut T {
        &mut self.value
    }
}

impl<T: fmt::Debug, N: JavaType> fmt::Debug for Typed<T, N> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Typed<{}>(", N::name())?;
        self.value.fmt(f)?;
        f.write_str(")")
    }
}

impl<T: Clone, N> Clone for Typed<T, N> {
    fn clone(&self) -> Self {
        Typed::new(self.value.clone())
    }
}

impl<T: PartialEq, N> PartialEq for Typed<T, N> {
    fn eq(&self, other: &Self) -> bool {
        self.value == other.value
    }
}

impl<T: Eq, N> Eq for Typed<T, N> {}

impl<T: Default, N> Default for Typed<T, N> {
    fn default() -> Self {
        Typed::new(T::default())
    }
}

impl<T: Serialize, N: JavaType> Serialize for Typed<T, N> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_newtype_struct(N::TOKEN, &self.value)
    }
}

impl<'de, T: Deserialize<'de>, N: JavaType> Deserialize<'de> for Typed<T, N> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct Inner<T>(PhantomData<T>);
        impl<'de, T: Deserialize<'de>> Visitor<'de> for Inner<T> {
            type Value = T;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a typed list or map")
            }
            fn visit_newtype_struct<D: Deserializer<'de>>(self, d: D) -> Result<T, D::Error> {
                T::deserialize(d)
            }
        }
        deserializer
            .deserialize_newtype_struct(N::TOKEN, Inner(PhantomData))
            .map(Typed::new)
    }
}
