//! Bytes to [`Value`].

use bytes::Bytes;

use crate::decode::{Decoder, Header};
use crate::error::{Error, ErrorKind, Result};
use crate::marker::{container, long};
use crate::types::ZonedDateTime;

use super::{Symbol, Typed, Value};

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
    // What most of a POJO's values are, without building a `Header` first.
    match d.peek()? {
        // int32 -16..=47: the code itself as a signed byte.
        c @ (0xf0..=0xff | 0x00..=0x2f) => {
            d.bump();
            return Ok(Value::Int(i32::from(c as i8)));
        }
        c @ long::DIRECT_FIRST..=long::DIRECT_LAST => {
            d.bump();
            return Ok(Value::Long(i64::from(c) - i64::from(long::DIRECT_ZERO)));
        }
        container::OBJECT => {
            d.bump();
            return object(d);
        }
        c @ container::ARRAY_FIX_FIRST..=container::ARRAY_FIX_LAST => {
            d.bump();
            return array(d, usize::from(c - container::ARRAY_FIX_FIRST));
        }
        _ => {}
    }
    if let Some(s) = d.next_if_short_ascii() {
        return Ok(Value::String(s.to_owned()));
    }
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
        Header::Array(n) => return array(d, n),
        Header::Object => return object(d),
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

/// The `n` items of an array whose head was just read.
fn array(d: &mut Decoder<'_>, n: usize) -> Result<Value> {
    d.enter()?;
    // Each item takes at least one byte: never reserve more than the input could hold.
    let mut items = Vec::with_capacity(n.min(d.remaining()));
    for _ in 0..n {
        items.push(read_value(d)?);
    }
    d.leave();
    Ok(Value::Array(items))
}

/// The entries of an object whose start code was just read.
fn object(d: &mut Decoder<'_>) -> Result<Value> {
    d.enter()?;
    // Room for a small POJO's fields at once, rather than growing 4, 8, 16 (an empty object
    // allocates nothing).
    let mut entries = if d.peek()? == container::OBJECT_END {
        Vec::new()
    } else {
        Vec::with_capacity(OBJECT_CAPACITY)
    };
    loop {
        // Keys as Java writes them: a POJO's field names are symbols, a map's keys
        // mostly short strings.
        let key = if let Some(name) = d.next_if_ascii_symbol() {
            Value::Symbol(Symbol::from_ascii(name))
        } else if let Some(name) = d.next_if_short_ascii() {
            Value::String(name.to_owned())
        } else {
            match d.next_if_symbol_text() {
                Some(name) => Value::Symbol(name?.as_ref().into()),
                None => match d.pull()? {
                    Header::End => break,
                    k => value_of(d, k)?,
                },
            }
        };
        entries.push((key, read_value(d)?));
    }
    d.leave();
    Ok(Value::Object(entries))
}
