//! `hessian2-dump --annotate`: every value of a stream on its own line with its byte offset and
//! byte codes, like `protoc --decode_raw` or an annotated hex dump, so that a wire difference
//! between Java and us can be read off the screen.
//!
//! ```text
//! offset  bytes                                      value
//! 000000  43 30 1b 69 6f 2e 67 69 74 68 75 62 2e … (31) class def #0 io.github.hessianrs.demo.User [id, name]
//! 00001f  60                                         object #0 (ref 0) io.github.hessianrs.demo.User {
//! 000020  e1                                           id: long 1
//! 000021  05 61 6c 69 63 65                            name: "alice"
//! 000027                                             }
//! ```
//!
//! Reference numbers (`ref n`) count lists, maps and objects in stream order: the `n` a `Q`
//! (`Value::Ref`) points at. Type names and class definitions print their table index (`#n`)
//! where they are defined and where they are used.

use std::io::{self, Write};

use hessian2::decode::{Decoder, Header};
use hessian2::input::SliceInput;
use hessian2::marker::list;
use hessian2::Error;

/// Bytes shown in hex on one line; longer runs end with `… (n)`, their length.
const HEX_BYTES: usize = 12;
/// Characters of a string shown before it is cut.
const TEXT_CHARS: usize = 60;

/// An error of the annotation: the stream's (with its byte offset) or the output's.
pub enum AnnotateError {
    Decode(Error),
    /// A `Z` (end of a map or list) where a value should begin, at this byte offset.
    UnexpectedEnd(u64),
    Output(io::Error),
}

impl From<Error> for AnnotateError {
    fn from(e: Error) -> Self {
        AnnotateError::Decode(e)
    }
}

impl From<io::Error> for AnnotateError {
    fn from(e: io::Error) -> Self {
        AnnotateError::Output(e)
    }
}

/// Writes the annotation of every top-level value of `input` to `out`.
pub fn annotate(input: &[u8], out: &mut impl Write) -> Result<(), AnnotateError> {
    let mut a = Annotator {
        input,
        decoder: Decoder::new(SliceInput::new(input)),
        out,
        refs: 0,
    };
    writeln!(
        a.out,
        "offset  {:<width$} value",
        "bytes",
        width = HEX_WIDTH
    )?;
    while !a.decoder.is_empty() {
        a.value(0, "")?;
    }
    Ok(())
}

/// Width of the hex column: `HEX_BYTES` bytes and the `… (n)` suffix.
const HEX_WIDTH: usize = HEX_BYTES * 3 + 8;

struct Annotator<'a, W> {
    input: &'a [u8],
    decoder: Decoder<'a, SliceInput<'a>>,
    out: &'a mut W,
    /// Lists, maps and objects seen so far: the next one's reference number.
    refs: u32,
}

impl<W: Write> Annotator<'_, W> {
    /// One line: the offset of `start`, the bytes `start..end` in hex, the indented text.
    fn line(&mut self, start: u64, end: u64, depth: usize, text: &str) -> io::Result<()> {
        let bytes = &self.input[start as usize..end as usize];
        let mut hex = String::with_capacity(HEX_WIDTH);
        for b in bytes.iter().take(HEX_BYTES) {
            hex.push_str(&format!("{b:02x} "));
        }
        if bytes.len() > HEX_BYTES {
            hex.push_str(&format!("… ({})", bytes.len()));
        }
        writeln!(
            self.out,
            "{start:06x}  {hex:<HEX_WIDTH$} {:indent$}{text}",
            "",
            indent = depth * 2
        )
    }

    /// Annotates one value at nesting `depth`, its line starting with `label`.
    fn value(&mut self, depth: usize, label: &str) -> Result<(), AnnotateError> {
        let start = self.decoder.offset();
        let (classes, types) = (self.decoder.class_count(), self.decoder.type_count());
        let header = self.decoder.pull()?;
        // Class definitions `C` are consumed by `pull` before the object that needs them: their
        // bytes are shown on the first definition's line (several in a row share it).
        let mut head = start;
        if self.decoder.class_count() > classes {
            let object_at = self.decoder.last_mark().offset;
            for index in classes..self.decoder.class_count() {
                let class = self.decoder.class(index);
                let text = format!(
                    "class def #{index} {} [{}]",
                    class.name,
                    class.fields.join(", ")
                );
                self.line(head, object_at, depth, &text)?;
                head = object_at;
            }
        }
        let type_note = |d: &Decoder<'_, SliceInput<'_>>, ty: Option<usize>| match ty {
            None => String::new(),
            Some(i) if i >= types => format!(" type #{i} {} (defined)", d.type_name(i)),
            Some(i) => format!(" type #{i} {}", d.type_name(i)),
        };
        match header {
            Header::Null => self.scalar(head, depth, label, "null")?,
            Header::Bool(b) => self.scalar(head, depth, label, &b.to_string())?,
            Header::Int(i) => self.scalar(head, depth, label, &format!("int {i}"))?,
            Header::Long(l) => self.scalar(head, depth, label, &format!("long {l}"))?,
            Header::Double(d) => self.scalar(head, depth, label, &format!("double {d:?}"))?,
            Header::Date(ms) => self.scalar(head, depth, label, &format!("date {ms} ms"))?,
            Header::Ref(n) => self.scalar(head, depth, label, &format!("ref -> {n}"))?,
            Header::End => return Err(AnnotateError::UnexpectedEnd(head)),
            Header::String { len, last } => {
                let text = self.decoder.read_str(len, last)?;
                let units: usize = text.encode_utf16().count();
                let mut shown: String = text.chars().take(TEXT_CHARS).collect();
                if shown.len() < text.len() {
                    shown.push('…');
                }
                let chunks = if last { "" } else { ", chunked" };
                let note = format!("{shown:?} ({units} UTF-16 units{chunks})");
                self.scalar(head, depth, label, &note)?;
            }
            Header::Binary { len, last } => {
                let bytes = self.decoder.read_binary(len, last)?.len();
                let chunks = if last { "" } else { ", chunked" };
                self.scalar(
                    head,
                    depth,
                    label,
                    &format!("binary ({bytes} bytes{chunks})"),
                )?;
            }
            Header::List { ty, len } => {
                let reference = self.next_ref();
                let size = len.map_or_else(|| "variable".to_owned(), |n| n.to_string());
                let note = type_note(&self.decoder, ty);
                let text = format!("{label}list (ref {reference}, {size}){note} [");
                self.open(head, depth, &text)?;
                match len {
                    Some(n) => {
                        for i in 0..n {
                            self.value(depth + 1, &format!("[{i}] "))?;
                        }
                    }
                    None => {
                        let mut i = 0;
                        while !self.at_end()? {
                            self.value(depth + 1, &format!("[{i}] "))?;
                            i += 1;
                        }
                    }
                }
                self.close(depth, len.is_none(), "]")?;
            }
            Header::Map { ty } => {
                let reference = self.next_ref();
                let note = type_note(&self.decoder, ty);
                self.open(
                    head,
                    depth,
                    &format!("{label}map (ref {reference}){note} {{"),
                )?;
                let mut i = 0;
                while !self.at_end()? {
                    self.value(depth + 1, &format!("key {i}: "))?;
                    self.value(depth + 2, "=> ")?;
                    i += 1;
                }
                self.close(depth, true, "}")?;
            }
            Header::Object { class } => {
                let reference = self.next_ref();
                let def = self.decoder.class(class).clone();
                let text = format!("{label}object #{class} (ref {reference}) {} {{", def.name);
                self.open(head, depth, &text)?;
                for field in def.fields.iter() {
                    self.value(depth + 1, &format!("{field}: "))?;
                }
                self.close(depth, false, "}")?;
            }
        }
        Ok(())
    }

    /// The line of a complete value that began at `start`.
    fn scalar(&mut self, start: u64, depth: usize, label: &str, text: &str) -> io::Result<()> {
        let end = self.decoder.offset();
        self.line(start, end, depth, &format!("{label}{text}"))
    }

    /// The line of a container's head; its contents follow one level deeper.
    fn open(&mut self, start: u64, depth: usize, text: &str) -> Result<(), AnnotateError> {
        let end = self.decoder.offset();
        self.line(start, end, depth, text)?;
        self.decoder.enter()?;
        Ok(())
    }

    /// The closing line of a container: its `Z` byte when it has one.
    fn close(&mut self, depth: usize, has_end: bool, bracket: &str) -> Result<(), AnnotateError> {
        self.decoder.leave();
        let start = self.decoder.offset();
        if has_end {
            // `at_end` saw the `Z`: consume it.
            self.decoder.pull()?;
        }
        let end = self.decoder.offset();
        self.line(start, end, depth, bracket)?;
        Ok(())
    }

    /// Whether a `Z` (end of a map or variable-length list) comes next.
    fn at_end(&self) -> Result<bool, AnnotateError> {
        Ok(self.decoder.peek_u8()? == list::END)
    }

    fn next_ref(&mut self) -> u32 {
        let n = self.refs;
        self.refs += 1;
        n
    }
}
