//! The stream's type names and class definitions (`C`): read, recorded in the stream's tables,
//! and recognised by their bytes when an earlier message on the thread held the same ones (see
//! `intern.rs`).

use std::sync::Arc;

use super::intern::Interned;
use super::{Decoder, Header};
use crate::error::{ErrorKind, Result};
use crate::input::Input;
use crate::marker::{self, int};

/// A class definition read from the stream: the Java class name and its fields in wire order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ClassDef {
    /// Java class name.
    pub name: Arc<str>,
    /// Field names, in the order their values follow in each instance.
    pub fields: Arc<[Arc<str>]>,
}

/// The canonical encoding of a string (Java's and this crate's).
fn encoded_string(s: &str) -> Box<[u8]> {
    let mut encoder = crate::encode::Encoder::new(Vec::new());
    encoder.write_str(s);
    encoder.into_inner().into_boxed_slice()
}

/// The canonical encoding of a class definition, without its leading `C`.
fn encoded_class(def: &ClassDef) -> Box<[u8]> {
    let fields: Vec<&str> = def.fields.iter().map(|f| &**f).collect();
    let mut encoder = crate::encode::Encoder::new(Vec::new());
    encoder.write_class_definition(&def.name, &fields);
    encoder.into_inner()[1..].into()
}

impl<'de, I: Input<'de>> Decoder<'de, I> {
    /// Reads a type: a new type name (a string, recorded) or an int index of an earlier one.
    pub(super) fn read_type(&mut self) -> Result<usize> {
        let at = self.offset();
        let code = self.peek_u8()?;
        if marker::classify(code) == marker::Family::String {
            // The name an earlier stream had in this slot, met again: taken as it is.
            if let Some(index) = self.take_known_type(0) {
                return Ok(index);
            }
            let (name, seen) = match self.take_seen_type() {
                Some((name, i)) => (name, Some(i)),
                None => {
                    let seen = std::mem::take(&mut self.t.seen_types);
                    let mut known = false;
                    let name = self.read_shared_string(|s| {
                        let found = seen.named(s).next().cloned();
                        known = found.is_some();
                        found
                    });
                    self.t.seen_types = seen;
                    let name = name?;
                    let seen = match known {
                        false => self
                            .t
                            .seen_types
                            .insert(name.clone(), |n| encoded_string(n)),
                        true => None,
                    };
                    (name, seen)
                }
            };
            if let Some((next_type, _)) = &mut self.replay {
                // Replaying: the name was recorded the first time, at this index.
                let index = *next_type;
                *next_type += 1;
                return self.known_type(index, at);
            }
            self.t.types.push(name, seen);
            Ok(self.t.types.len() - 1)
        } else {
            // Usually a one-byte int.
            let index = match code {
                0x90..=0xbf => {
                    self.input.advance(1);
                    (code - int::DIRECT_ZERO) as usize
                }
                _ => self.read_length("type index")?,
            };
            self.known_type(index, at)
        }
    }

    /// When the input, from `skip` bytes on, holds the type name an earlier stream had in the
    /// next slot (see `slots.rs`): consumes it (and the `skip` bytes before it) and returns its
    /// index. Not while replaying (the name then has its index from the first time).
    #[inline]
    pub(super) fn take_known_type(&mut self, skip: usize) -> Option<usize> {
        if self.replay.is_some() {
            return None;
        }
        let input = self.input.chunk().get(skip..)?;
        let n = self.t.types.next_known(&self.t.seen_types, input)?;
        self.input.advance(skip + n);
        self.t.types.take_next();
        Some(self.t.types.len() - 1)
    }

    /// `index` if the stream has defined that many type names; else an error at `at`.
    fn known_type(&self, index: usize, at: u64) -> Result<usize> {
        if index < self.t.types.len() {
            Ok(index)
        } else {
            Err(self.error_at(
                at,
                ErrorKind::BadReference {
                    table: "type",
                    index: index as u64,
                    len: self.t.types.len(),
                },
            ))
        }
    }

    /// Reads a value that must be a string, whole, as an `Arc<str>`: the one `lookup` finds
    /// for its text, or a new one.
    fn read_shared_string(
        &mut self,
        lookup: impl FnOnce(&str) -> Option<Arc<str>>,
    ) -> Result<Arc<str>> {
        let (len, last) = self.expect("a string", |h| match h {
            Header::String { len, last } => Some((len, last)),
            _ => None,
        })?;
        let text = self.read_str(len, last)?;
        Ok(lookup(&text).unwrap_or_else(|| Arc::from(&*text)))
    }

    /// A type name whose exact bytes were seen before, if the input holds them next, and its
    /// index among them.
    fn take_seen_type(&mut self) -> Option<(Arc<str>, usize)> {
        let (i, n) = self.t.seen_types.find_prefix(self.input.chunk())?;
        let name = self.t.seen_types.get(i).clone();
        self.input.advance(n);
        Some((name, i))
    }

    /// A class definition whose exact bytes were seen before, if the input holds them next,
    /// and its index among them.
    fn take_seen_class(&mut self) -> Option<(ClassDef, usize)> {
        let (i, n) = self.t.seen_classes.find_prefix(self.input.chunk())?;
        let def = self.t.seen_classes.get(i).clone();
        self.input.advance(n);
        Some((def, i))
    }

    /// Consumes the class definitions next in the input that an earlier stream had in the same
    /// slots (see `slots.rs`); anything else is left to `pull_slow`.
    #[inline]
    pub(super) fn take_known_definitions(&mut self) {
        while let [marker::object::DEFINITION, def @ ..] = self.input.chunk() {
            if self.replay.is_some() {
                return;
            }
            match self.t.classes.next_known(&self.t.seen_classes, def) {
                Some(n) => {
                    self.input.advance(1 + n);
                    self.t.classes.take_next();
                }
                None => return,
            }
        }
    }

    pub(super) fn read_class_def(&mut self) -> Result<()> {
        if self.replay.is_none() {
            // The definition an earlier stream had in this slot, met again: taken as it is.
            if let Some(n) = self
                .t
                .classes
                .next_known(&self.t.seen_classes, self.input.chunk())
            {
                self.input.advance(n);
                self.t.classes.take_next();
                return Ok(());
            }
        }
        let (def, seen) = match self.take_seen_class() {
            Some((def, i)) => (def, Some(i)),
            None => {
                let seen = std::mem::take(&mut self.t.seen_classes);
                let result = self.read_class_def_in(&seen);
                self.t.seen_classes = seen;
                let (def, new) = result?;
                let seen = match new {
                    true if self.replay.is_none() => {
                        self.t.seen_classes.insert(def.clone(), encoded_class)
                    }
                    _ => None,
                };
                (def, seen)
            }
        };
        if let Some((_, next_class)) = &mut self.replay {
            // Replaying: this definition is already in the table.
            *next_class += 1;
            return Ok(());
        }
        self.t.classes.push(def, seen);
        Ok(())
    }

    /// Reads a class definition; shares the strings of an equal one in `seen` (then `false`:
    /// not new). Compares without cloning: a definition met again costs no allocation and
    /// two reference-count increments.
    fn read_class_def_in(&mut self, seen: &Interned<ClassDef>) -> Result<(ClassDef, bool)> {
        let (len, last) = self.expect_string()?;
        let text = self.read_str(len, last)?;
        let known_name = seen.named(&text).next().map(|c| c.name.clone());
        let new_name: Option<Arc<str>> = match known_name {
            Some(_) => None,
            None => Some(Arc::from(&*text)),
        };
        let count = self.read_length("field count")?;
        // Each field name takes at least one byte: never trust the count beyond the input.
        self.ensure(count)?;
        let candidate = known_name
            .as_deref()
            .and_then(|name| seen.named(name).find(|c| c.fields.len() == count));
        // The fields read, once they differ from the candidate's (or without a candidate).
        let mut own: Option<Vec<Arc<str>>> = match candidate {
            Some(_) => None,
            None => Some(Vec::with_capacity(count)),
        };
        for k in 0..count {
            let (len, last) = self.expect_string()?;
            let text = self.read_str(len, last)?;
            match (&mut own, candidate) {
                (Some(fields), _) => fields.push(Arc::from(&*text)),
                (None, Some(c)) => {
                    if *c.fields[k] != *text {
                        let mut fields = Vec::with_capacity(count);
                        fields.extend(c.fields[..k].iter().cloned());
                        fields.push(Arc::from(&*text));
                        own = Some(fields);
                    }
                }
                (None, None) => unreachable!("fields are owned without a candidate"),
            }
        }
        Ok(match (own, candidate) {
            (None, Some(c)) => (c.clone(), false),
            (own, _) => {
                let name = match (new_name, known_name) {
                    (Some(name), _) | (None, Some(name)) => name,
                    (None, None) => unreachable!("a name is read or found"),
                };
                let fields = own.unwrap_or_default().into();
                (ClassDef { name, fields }, true)
            }
        })
    }
}
