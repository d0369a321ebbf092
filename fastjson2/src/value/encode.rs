//! [`Value`] to bytes, byte for byte as Java wrote it when the value came from Java.

use bytes::BufMut;

use crate::encode::{Encoder, PeerVersion};

use super::Value;

/// Encodes `value` as one JSONB document, as fastjson2 2.0.52 writes it.
pub fn to_vec(value: &Value) -> Vec<u8> {
    to_vec_with(value, PeerVersion::default())
}

/// Encodes `value` as one JSONB document, as fastjson2 `version` writes it.
pub fn to_vec_with(value: &Value, version: PeerVersion) -> Vec<u8> {
    let mut e = Encoder::with_version(Vec::with_capacity(crate::ser::INITIAL_CAPACITY), version);
    write_value(&mut e, value);
    e.into_inner()
}

/// Writes `value` with `e` (whose symbol numbering it continues).
pub fn write_value<B: BufMut>(e: &mut Encoder<B>, value: &Value) {
    match value {
        Value::Null => e.write_null(),
        Value::Bool(v) => e.write_bool(*v),
        Value::Int(v) => e.write_int(*v),
        Value::Long(v) => e.write_long(*v),
        Value::Byte(v) => e.write_byte(*v),
        Value::Short(v) => e.write_short(*v),
        Value::Float(v) => e.write_float(*v),
        Value::Double(v) => e.write_double(*v),
        Value::Char(v) => e.write_char(*v),
        Value::String(s) => e.write_str(s),
        Value::Symbol(s) => e.write_symbol(s),
        Value::Binary(b) => e.write_binary(b),
        Value::BigInteger(v) => e.write_big_integer(v),
        Value::BigDecimal(v) => e.write_big_decimal(v),
        Value::Date(v) => e.write_date(*v),
        Value::Instant(v) => e.write_instant(v),
        Value::LocalDate(v) => e.write_local_date(v),
        Value::LocalTime(v) => e.write_local_time(v),
        Value::LocalDateTime(v) => e.write_local_date_time(v),
        Value::ZonedDateTime(v) => e.write_zoned_date_time(v),
        Value::Array(items) => {
            e.write_array_header(items.len());
            for item in items {
                write_value(e, item);
            }
        }
        Value::Object(entries) => {
            e.write_object_start();
            for (k, v) in entries {
                write_value(e, k);
                write_value(e, v);
            }
            e.write_object_end();
        }
        Value::Typed(t) => {
            e.write_type_name(&t.class);
            write_value(e, &t.value);
        }
        Value::Ref(path) => e.write_ref(path),
    }
}
