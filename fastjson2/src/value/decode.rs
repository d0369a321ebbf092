//! Bytes to [`Value`].

use bytes::Bytes;

use crate::decode::{Decoder, Header};
use crate::error::{Error, ErrorKind, Result};
use crate::marker::container;
use crate::types::ZonedDateTime;

use super::{Typed, Value};

/// Entries an object starts with.
const OBJECT_CAPACITY: usize = 8;

/// Decodes one whole JSONB document (trailing bytes are an error).
pub fn from_slice(bytes: &[u8]) -> Result<Value> {
    let mut d = Decoder::new(bytes);
    let v = read_value(&mut d)?;
    d.end()?;
    Ok(v)
}

/// Reads the next value from `d`.
pub fn read_value(d: &mut Decoder<'_>) -> Result<Value> {
    let h = d.pull()?;
    value_of(d, h)
}

/// Reads the value that `header`, just pulled from `d`, starts: for a caller that reads some
/// values its own way (strings, without a `Value`) and the others as values.
pub fn read_value_after(d: &mut Decoder<'_>, header: Header<'_>) -> Result<Value> {
    value_of(d, header)
}

fn value_of(d: &mut Decoder<'_>, h: Header<'_>) -> Result<Value> {
    Ok(match h {
        Header::Null => Value::Null,
        Header::Bool(b) => Value::Bool(b),
        Header::Int(v) => Value::Int(v),
        Header::Long(v) => Value::Long(v),
        Header::Byte(v) => Value::Byte(v),
        Header::Short(v) => Value::Short(v),
        Header::Float(v) => Value::Float(v),
        Header::Double(v) => Value::Double(v),
        Header::Char(v) => Value::Char(v),
        Header::String(s) => Value::String(s.into_owned()),
        Header::Symbol(s) => Value::Symbol(s.as_ref().into()),
        Header::Binary(b) => Value::Binary(Bytes::copy_from_slice(b)),
        Header::BigInteger(v) => Value::BigInteger(v),
        Header::BigDecimal(v) => Value::BigDecimal(v),
        Header::Date(v) => Value::Date(v),
        Header::Instant(v) => Value::Instant(v),
        Header::LocalDate(v) => Value::LocalDate(v),
        Header::LocalTime(v) => Value::LocalTime(v),
        Header::LocalDateTime(v) => Value::LocalDateTime(v),
        Header::ZonedDateTime(date_time, zone) => Value::ZonedDateTime(ZonedDateTime {
            date_time,
            zone: zone.into_owned(),
        }),
        Header::Ref(path) => Value::Ref(path.into_owned()),
        Header::Array(n) => {
            d.enter()?;
            // Each item takes at least one byte: never reserve more than the input could hold.
            let mut items = Vec::with_capacity(n.min(d.remaining()));
            for _ in 0..n {
                items.push(read_value(d)?);
            }
            d.leave();
            Value::Array(items)
        }
        Header::Object => {
            d.enter()?;
            // Room for a small POJO's fields at once, rather than growing 4, 8, 16 (an empty
            // object allocates nothing).
            let mut entries = if d.peek()? == container::OBJECT_END {
                Vec::new()
            } else {
                Vec::with_capacity(OBJECT_CAPACITY)
            };
            loop {
                let key = match d.next_if_symbol_text() {
                    Some(name) => Value::Symbol(name?.as_ref().into()),
                    None => match d.pull()? {
                        Header::End => break,
                        k => value_of(d, k)?,
                    },
                };
                entries.push((key, read_value(d)?));
            }
            d.leave();
            Value::Object(entries)
        }
        Header::Typed(class) => {
            d.enter()?;
            let class = class.into_owned();
            let value = read_value(d)?;
            d.leave();
            Value::Typed(Box::new(Typed { class, value }))
        }
        Header::End => {
            let kind = ErrorKind::Unexpected {
                found: container::OBJECT_END,
                expected: "a value",
            };
            return Err(Error::new(kind, d.offset() as u64 - 1));
        }
    })
}
