//! Building [`Value`]s from the pull decoder.

use super::{List, Map, Object, Value};
use crate::decode::{Decoder, Header, JavaString};
use crate::error::{ErrorKind, Result};
use crate::input::{Input, SliceInput};

/// Decodes the values of one stream in turn, sharing the class, type and reference tables
/// between them as Java's `Hessian2Input` does.
pub struct ValueDecoder<'de, I> {
    decoder: Decoder<'de, I>,
    /// How many lists, maps and objects the stream has started: the next reference index.
    refs: u32,
}

impl<'de, I: Input<'de>> ValueDecoder<'de, I> {
    /// Reads from `input`.
    pub fn new(input: I) -> Self {
        Self::from_decoder(Decoder::new(input))
    }

    /// Reads with a configured [`Decoder`] (e.g. another depth limit).
    pub fn from_decoder(decoder: Decoder<'de, I>) -> Self {
        ValueDecoder { decoder, refs: 0 }
    }

    /// Starts over on a new stream (the next message of a connection): empty class, type and
    /// reference tables, keeping their memory and the class definitions and type names read
    /// before, which the next stream takes after one comparison of their bytes when it defines
    /// them again (as Dubbo does in every message).
    ///
    /// ```
    /// use hessian2::input::SliceInput;
    /// use hessian2::value::{self, Value, ValueDecoder};
    ///
    /// let first = value::to_vec(&Value::Int(1));
    /// let second = value::to_vec(&Value::from("two"));
    /// let mut decoder = ValueDecoder::new(SliceInput::new(&first));
    /// assert_eq!(decoder.next_value()?, Some(Value::Int(1)));
    /// decoder.reset(SliceInput::new(&second));
    /// assert_eq!(decoder.next_value()?, Some(Value::from("two")));
    /// assert_eq!(decoder.next_value()?, None);
    /// # Ok::<(), hessian2::Error>(())
    /// ```
    pub fn reset(&mut self, input: I) {
        self.decoder.reset(input);
        self.refs = 0;
    }

    /// The underlying decoder.
    pub fn decoder(&self) -> &Decoder<'de, I> {
        &self.decoder
    }

    /// The underlying decoder, to read or skip a value without building it. A container
    /// skipped this way is not counted: a later `Q` reference to or past it is misread, so
    /// skip only where nothing after refers back (or expect `BadReference`).
    pub fn decoder_mut(&mut self) -> &mut Decoder<'de, I> {
        &mut self.decoder
    }

    /// The next value, or `None` at the end of the input.
    pub fn next_value(&mut self) -> Result<Option<Value>> {
        if self.decoder.is_empty() {
            return Ok(None);
        }
        self.value().map(Some)
    }

    /// Pulls the next header and builds its value. Pulling here rather than in the caller
    /// lets the compiler fold the match on the header into the one on its first byte.
    fn value(&mut self) -> Result<Value> {
        Ok(match self.decoder.pull_inlined()? {
            Header::Null => Value::Null,
            Header::Bool(v) => Value::Bool(v),
            Header::Int(v) => Value::Int(v),
            Header::Long(v) => Value::Long(v),
            Header::Double(v) => Value::Double(v),
            Header::Date(v) => Value::Date(v),
            Header::String { len, last } => match self.decoder.read_java_string(len, last)? {
                JavaString::Text(text) => Value::String(text),
                JavaString::Utf16(units) => Value::Utf16(units),
            },
            Header::Binary { len, last } => {
                Value::Binary(self.decoder.read_binary_bytes(len, last)?)
            }
            Header::List { ty, len } => {
                self.refs += 1;
                let ty = ty.map(|t| self.decoder.type_name(t).clone());
                self.decoder.enter()?;
                let items = match len {
                    Some(n) => {
                        // A length field is a claim: reserve only what the input can fill.
                        let mut items = Vec::with_capacity(self.decoder.room_for(n));
                        for _ in 0..n {
                            items.push(self.value()?);
                        }
                        items
                    }
                    None => {
                        let mut items = Vec::new();
                        while !self.at_end() {
                            items.push(self.value()?);
                        }
                        items
                    }
                };
                self.decoder.leave();
                Value::List(List { ty, items })
            }
            Header::Map { ty } => {
                let ty = ty.map(|t| self.decoder.type_name(t).clone());
                let mut entries = Vec::new();
                self.entries(|key, value| entries.push((key, value)))?;
                Value::Map(Map { ty, entries })
            }
            Header::Object { class } => {
                self.refs += 1;
                let def = self.decoder.class(class);
                let (class, fields) = (def.name.clone(), def.fields.clone());
                self.decoder.enter()?;
                // Many fields cost their definition's bytes once, then nothing per object.
                let mut values = Vec::with_capacity(self.decoder.room_for(fields.len()));
                for _ in 0..fields.len() {
                    values.push(self.value()?);
                }
                self.decoder.leave();
                Value::Object(Object {
                    class,
                    fields,
                    values,
                })
            }
            Header::Ref(n) => {
                if n >= self.refs {
                    return Err(self.decoder.error(ErrorKind::BadReference {
                        table: "value",
                        index: n.into(),
                        len: self.refs as usize,
                    }));
                }
                Value::Ref(n)
            }
            Header::End => {
                return Err(self.decoder.error(ErrorKind::Unexpected {
                    found: crate::marker::list::END,
                    expected: "a value",
                }))
            }
        })
    }

    /// When the next value is a map, reads it entry by entry, handing each key and value to
    /// `entry` as they are read (for a caller that keeps them in a collection of its own: no
    /// `Vec` of the map's is built), and returns true; the map counts for references as
    /// [`next_value`](Self::next_value) counts it, its type name is dropped. Otherwise (another
    /// value, or the end of the input) reads nothing and returns false.
    ///
    /// ```
    /// use hessian2::input::SliceInput;
    /// use hessian2::value::{self, Value, ValueDecoder};
    ///
    /// let map = Value::untyped_map(vec![(Value::from("k"), Value::Int(1))]);
    /// let bytes = [value::to_vec(&map), value::to_vec(&Value::Null)].concat();
    /// let mut decoder = ValueDecoder::new(SliceInput::new(&bytes));
    /// let mut entries = Vec::new();
    /// assert!(decoder.next_map_entries(|k, v| entries.push((k, v)))?);
    /// assert_eq!(entries, [(Value::from("k"), Value::Int(1))]);
    /// assert!(!decoder.next_map_entries(|_, _| unreachable!())?);
    /// assert_eq!(decoder.next_value()?, Some(Value::Null));
    /// # Ok::<(), hessian2::Error>(())
    /// ```
    pub fn next_map_entries(&mut self, entry: impl FnMut(Value, Value)) -> Result<bool> {
        use crate::marker::map::{TYPED, UNTYPED};
        let Some(marker @ (TYPED | UNTYPED)) = self.decoder.peek_byte() else {
            return Ok(false);
        };
        match self.decoder.pull()? {
            Header::Map { .. } => self.entries(entry)?,
            // A map's marker starts no other header (or an error, returned above).
            _ => {
                return Err(self.decoder.error(ErrorKind::Unexpected {
                    found: marker,
                    expected: "a map",
                }))
            }
        }
        Ok(true)
    }

    /// Reads the entries of the map whose header was just pulled, up to its `Z`, handing
    /// each to `entry`; counts the map for references.
    fn entries(&mut self, mut entry: impl FnMut(Value, Value)) -> Result<()> {
        self.refs += 1;
        self.decoder.enter()?;
        while !self.at_end() {
            let key = self.value()?;
            entry(key, self.value()?);
        }
        self.decoder.leave();
        Ok(())
    }

    /// Consumes the `Z` that ends a map or a variable-length list, if it is next (anything
    /// else, the end of the input included, is left for [`value`](Self::value) to read or
    /// refuse).
    #[inline]
    fn at_end(&mut self) -> bool {
        let end = self.decoder.peek_byte() == Some(crate::marker::list::END);
        if end {
            self.decoder.consume_peeked();
        }
        end
    }
}

/// Decodes the first value of `bytes`. Trailing bytes are an error; use [`Stream`] or
/// [`ValueDecoder`] for several values.
pub fn from_slice(bytes: &[u8]) -> Result<Value> {
    let mut decoder = ValueDecoder::new(SliceInput::new(bytes));
    let value = match decoder.next_value()? {
        Some(v) => v,
        None => return Err(decoder.decoder.eof(1)),
    };
    if !decoder.decoder.is_empty() {
        let found = decoder.decoder.peek_u8()?;
        return Err(decoder.decoder.error(ErrorKind::Unexpected {
            found,
            expected: "the end of the input",
        }));
    }
    Ok(value)
}

/// All values of one stream (e.g. the arguments of a Dubbo request), with the means to follow
/// references between them.
#[derive(Debug, Clone, PartialEq)]
pub struct Stream {
    /// The top-level values in order.
    pub values: Vec<Value>,
}

impl Stream {
    /// Decodes every value of `bytes`.
    pub fn from_slice(bytes: &[u8]) -> Result<Self> {
        let mut decoder = ValueDecoder::new(SliceInput::new(bytes));
        let mut values = Vec::new();
        while let Some(v) = decoder.next_value()? {
            values.push(v);
        }
        Ok(Stream { values })
    }

    /// The list, map or object that [`Value::Ref`]`(index)` refers to.
    pub fn resolve(&self, index: u32) -> Option<&Value> {
        let mut seen = 0u32;
        self.values
            .iter()
            .find_map(|v| find_container(v, index, &mut seen))
    }
}

/// Depth-first, in wire order: the `target`-th list/map/object.
fn find_container<'v>(v: &'v Value, target: u32, seen: &mut u32) -> Option<&'v Value> {
    let children: Box<dyn Iterator<Item = &Value>> = match v {
        Value::List(l) => Box::new(l.items.iter()),
        Value::Map(m) => Box::new(m.entries.iter().flat_map(|(k, v)| [k, v])),
        Value::Object(o) => Box::new(o.values.iter()),
        _ => return None,
    };
    if *seen == target {
        return Some(v);
    }
    *seen += 1;
    for child in children {
        if let Some(found) = find_container(child, target, seen) {
            return Some(found);
        }
    }
    None
}
