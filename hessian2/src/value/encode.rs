//! Writing [`Value`]s with the encoder, in Java's forms.

use bytes::BufMut;

use super::{Stream, Value};
use crate::encode::{Encoder, PeerVersion};

impl Value {
    /// Writes this value. Lists are written with their length (as Java writes collections),
    /// references as `Q`; class definitions and type names go through the encoder's tables, so
    /// several values written to one encoder share them, as in a Java stream.
    pub fn encode<B: BufMut>(&self, enc: &mut Encoder<B>) {
        match self {
            Value::Null => enc.write_null(),
            Value::Bool(v) => enc.write_bool(*v),
            Value::Int(v) => enc.write_int(*v),
            Value::Long(v) => enc.write_long(*v),
            Value::Double(v) => enc.write_double(*v),
            Value::Date(v) => enc.write_date(*v),
            Value::String(s) => enc.write_str(s),
            Value::Utf16(units) => enc.write_utf16(units),
            Value::Binary(b) => enc.write_binary(b),
            Value::List(list) => {
                enc.write_list_start(Some(list.items.len()), list.ty.as_deref());
                for item in &list.items {
                    item.encode(enc);
                }
            }
            Value::Map(map) => {
                enc.write_map_start(map.ty.as_deref());
                for (k, v) in &map.entries {
                    k.encode(enc);
                    v.encode(enc);
                }
                enc.write_end();
            }
            Value::Object(obj) => {
                enc.write_object_start(&obj.class, &obj.fields);
                for v in &obj.values {
                    v.encode(enc);
                }
            }
            Value::Ref(n) => enc.write_ref(*n),
        }
    }
}

/// Encodes one value, byte-identical with hessian-lite 3.2.
pub fn to_vec(value: &Value) -> Vec<u8> {
    to_vec_with(value, PeerVersion::default())
}

/// Encodes one value as hessian-lite `version` does. Several values of one stream (shared
/// tables): [`Stream::to_vec_with`].
pub fn to_vec_with(value: &Value, version: PeerVersion) -> Vec<u8> {
    let mut enc = Encoder::with_version(Vec::new(), version);
    value.encode(&mut enc);
    enc.into_inner()
}

impl Stream {
    /// Encodes every value as one stream (class definitions and types shared, as in one Java
    /// `Hessian2Output`), as hessian-lite `version` does.
    pub fn to_vec_with(&self, version: PeerVersion) -> Vec<u8> {
        let mut enc = Encoder::with_version(Vec::new(), version);
        for v in &self.values {
            v.encode(&mut enc);
        }
        enc.into_inner()
    }
}
