//! `java.util.EnumSet`.

use serde::de::{Deserialize, Deserializer};
use serde::ser::{Serialize, SerializeStruct, Serializer};

use super::{java, JavaClass, Typed};

const HANDLER: &str = "com.alibaba.com.caucho.hessian.io.EnumSetHandler";

/// A `java.util.EnumSet` of constants of the Rust enum `E` (whose serde name is the Java enum
/// class, its unit variants the constants), with the enum's class name.
///
/// hessian-lite (both generations) writes an `EnumSet` as a fresh `EnumSetHandler` object:
/// `objects`, an `[object` list of the constants, then `type`, the enum's `java.lang.Class`;
/// Java reads it back as an `EnumSet` of that enum. So does this type.
///
/// ```
/// use hessian2::types::EnumSet;
/// use serde::{Deserialize, Serialize};
///
/// #[derive(Serialize, Deserialize, Debug, PartialEq)]
/// #[serde(rename = "com.example.Color")]
/// enum Color { Red, Blue }
///
/// let set = EnumSet { class: "com.example.Color".into(), constants: vec![Color::Red, Color::Blue] };
/// let bytes = hessian2::to_vec(&set)?;
/// assert!(bytes.starts_with(b"C\x30\x30com.alibaba.com.caucho.hessian.io.EnumSetHandler"));
/// assert_eq!(hessian2::from_slice::<EnumSet<Color>>(&bytes)?, set);
/// # Ok::<(), hessian2::Error>(())
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct EnumSet<E> {
    /// The Java enum class (`EnumSet`'s element type), written even for an empty set.
    pub class: String,
    /// The constants, in Java's order (the enum's declaration order).
    pub constants: Vec<E>,
}

impl<E: Serialize> Serialize for EnumSet<E> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut st = s.serialize_struct(HANDLER, 2)?;
        st.serialize_field(
            "objects",
            &Typed::<_, java::ObjectArray>::new(&self.constants),
        )?;
        st.serialize_field("type", &JavaClass(self.class.clone()))?;
        st.end()
    }
}

impl<'de, E: Deserialize<'de>> Deserialize<'de> for EnumSet<E> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        #[derive(serde::Deserialize)]
        #[serde(rename = "com.alibaba.com.caucho.hessian.io.EnumSetHandler")]
        struct Wire<E> {
            objects: Vec<E>,
            #[serde(rename = "type")]
            class: JavaClass,
        }
        let w = Wire::deserialize(d)?;
        Ok(EnumSet {
            class: w.class.0,
            constants: w.objects,
        })
    }
}
