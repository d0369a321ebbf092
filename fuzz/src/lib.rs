//! Helpers shared by the fuzz targets.

use bytes::Buf;
use hessian2::input::Input;
use hessian2::value::{Value, ValueDecoder};
use hessian2::Error;

/// Value equality for round trips: doubles compare by bits (so NaN equals the same NaN) except
/// that -0.0 equals 0.0, since Java (and our encoder) writes -0.0 as 0.0.
pub fn value_eq(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Double(x), Value::Double(y)) => norm(*x).to_bits() == norm(*y).to_bits(),
        (Value::List(x), Value::List(y)) => x.ty == y.ty && values_eq(&x.items, &y.items),
        (Value::Map(x), Value::Map(y)) => {
            x.ty == y.ty
                && x.entries.len() == y.entries.len()
                && x.entries
                    .iter()
                    .zip(&y.entries)
                    .all(|((k1, v1), (k2, v2))| value_eq(k1, k2) && value_eq(v1, v2))
        }
        (Value::Object(x), Value::Object(y)) => {
            x.class == y.class && x.fields == y.fields && values_eq(&x.values, &y.values)
        }
        (Value::List(_) | Value::Map(_) | Value::Object(_) | Value::Double(_), _) => false,
        _ => a == b,
    }
}

/// [`value_eq`] item by item.
pub fn values_eq(a: &[Value], b: &[Value]) -> bool {
    a.len() == b.len() && a.iter().zip(b).all(|(x, y)| value_eq(x, y))
}

fn norm(x: f64) -> f64 {
    if x == 0.0 {
        0.0
    } else {
        x
    }
}

/// Strict equality of two decodes of the same bytes: doubles by bits, -0.0 distinct.
pub fn identical(a: &[Value], b: &[Value]) -> bool {
    fn one(a: &Value, b: &Value) -> bool {
        match (a, b) {
            (Value::Double(x), Value::Double(y)) => x.to_bits() == y.to_bits(),
            (Value::List(x), Value::List(y)) => x.ty == y.ty && identical(&x.items, &y.items),
            (Value::Map(x), Value::Map(y)) => {
                x.ty == y.ty
                    && x.entries.len() == y.entries.len()
                    && x.entries
                        .iter()
                        .zip(&y.entries)
                        .all(|((k1, v1), (k2, v2))| one(k1, k2) && one(v1, v2))
            }
            (Value::Object(x), Value::Object(y)) => {
                x.class == y.class && x.fields == y.fields && identical(&x.values, &y.values)
            }
            (Value::List(_) | Value::Map(_) | Value::Object(_) | Value::Double(_), _) => false,
            _ => a == b,
        }
    }
    a.len() == b.len() && a.iter().zip(b).all(|(x, y)| one(x, y))
}

/// Every value of a stream read from any [`Input`] (what `Stream::from_slice` does for slices).
pub fn decode_all<'de, I: Input<'de>>(input: I) -> Result<Vec<Value>, Error> {
    let mut decoder = ValueDecoder::new(input);
    let mut values = Vec::new();
    while let Some(v) = decoder.next_value()? {
        values.push(v);
    }
    Ok(values)
}

/// `data` as a chain of chunks cut at `cuts` (positions taken modulo `data.len() + 1`, sorted;
/// equal cuts give empty chunks). Nested `Chain`s, as a codec gathering frames would build.
pub fn chained<'a>(data: &'a [u8], cuts: &[u16]) -> Box<dyn Buf + 'a> {
    let mut at: Vec<usize> = cuts
        .iter()
        .map(|&c| c as usize % (data.len() + 1))
        .collect();
    at.sort_unstable();
    let mut buf: Box<dyn Buf + 'a> = Box::new(&data[..0]);
    let mut from = 0;
    for to in at.into_iter().chain(std::iter::once(data.len())) {
        buf = Box::new(buf.chain(&data[from..to]));
        from = to;
    }
    buf
}

/// A compact rendering of a decode result for assertion messages.
pub fn show(r: &Result<Vec<Value>, Error>) -> String {
    match r {
        Ok(v) => format!("Ok({v:?})"),
        Err(e) => format!("Err({e:?})"),
    }
}
