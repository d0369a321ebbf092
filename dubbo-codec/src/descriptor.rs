//! Java parameter descriptors, as a Dubbo request carries them.
//!
//! A Dubbo 2 request names the parameter types of the method it calls in one string, the
//! concatenated JVM field descriptors of the parameters (Java's `ReflectUtils.getDesc`), for
//! `sayHello(String name, int times, long[] ids)`:
//!
//! ```text
//! Ljava/lang/String;I[J
//! ```
//!
//! | descriptor           | Java type             |
//! |----------------------|-----------------------|
//! | `Z B C S I J F D`    | `boolean byte char short int long float double` |
//! | `V`                  | `void` (never a real parameter; Dubbo's pattern accepts it) |
//! | `Lpkg/Name;`         | the class `pkg.Name` (nested classes: `pkg/Outer$Inner`) |
//! | `[` + descriptor     | an array of that type (`[[I` is `int[][]`) |
//!
//! The number of arguments that follow in the body is the number of descriptors in the
//! string, so a proxy that wants the attachments after the arguments needs
//! [`arg_count`] without decoding anything else. It runs in one pass over the bytes and
//! allocates nothing.
//!
//! # Validation
//!
//! The grammar is JVM field descriptors (JVM spec 4.3.2): a class name is one or more
//! non-empty segments separated by `/`, none containing `.`, `;` or `[`, ended by `;`; at
//! most 255 array dimensions. Other bytes, non-ASCII included, are allowed in class names, as
//! in the JVM. Java Dubbo's own pattern (`ReflectUtils.DESC_REGEX`) is stricter (ASCII
//! identifiers), but Dubbo 3 first looks the method up by the exact descriptor string, so
//! anything the JVM accepts can reach a Java provider. Malformed input is an error with the
//! byte offset of the problem, never a panic.

use std::fmt;

/// The JVM's limit on array dimensions.
pub const MAX_ARRAY_DIMENSIONS: usize = 255;

/// A malformed descriptor or Java type name.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum DescriptorError {
    /// The input ends inside a type: after `[`, or in a class name before its `;`.
    #[error("descriptor ends inside a type at byte {offset}")]
    UnexpectedEnd {
        /// Offset of the end of the input.
        offset: usize,
    },
    /// A byte that does not start a type.
    #[error("byte {byte:#04x} at offset {offset} does not start a type descriptor")]
    InvalidType {
        /// Offset of the byte.
        offset: usize,
        /// The byte.
        byte: u8,
    },
    /// An empty segment in a class name (`L;`, `La//B;`) or a `.` or `[` inside one.
    #[error("invalid class name at byte {offset}")]
    InvalidClassName {
        /// Offset of the offending byte.
        offset: usize,
    },
    /// More than [`MAX_ARRAY_DIMENSIONS`] dimensions.
    #[error("more than 255 array dimensions at byte {offset}")]
    TooManyDimensions {
        /// Offset of the 256th `[`.
        offset: usize,
    },
    /// A single type was expected but more follows.
    #[error("expected a single type, more follows at byte {offset}")]
    TrailingData {
        /// Offset of the first byte after the first type.
        offset: usize,
    },
    /// A Java type name (`java.lang.String`, `int[]`) that cannot be turned into a
    /// descriptor.
    #[error("invalid Java type name at byte {offset}")]
    InvalidTypeName {
        /// Offset of the offending byte in the name.
        offset: usize,
    },
}

impl DescriptorError {
    /// The byte offset of the problem.
    pub fn offset(&self) -> usize {
        match *self {
            DescriptorError::UnexpectedEnd { offset }
            | DescriptorError::InvalidType { offset, .. }
            | DescriptorError::InvalidClassName { offset }
            | DescriptorError::TooManyDimensions { offset }
            | DescriptorError::TrailingData { offset }
            | DescriptorError::InvalidTypeName { offset } => offset,
        }
    }
}

/// Checks the type descriptor that starts at `start` and returns where it ends.
#[inline(always)]
fn scan_one(b: &[u8], start: usize) -> Result<usize, DescriptorError> {
    let mut i = start;
    // Array dimensions.
    while let Some(b'[') = b.get(i) {
        i += 1;
    }
    if i - start > MAX_ARRAY_DIMENSIONS {
        return Err(DescriptorError::TooManyDimensions {
            offset: start + MAX_ARRAY_DIMENSIONS,
        });
    }
    match b.get(i) {
        Some(b'Z' | b'B' | b'C' | b'S' | b'I' | b'J' | b'F' | b'D' | b'V') => Ok(i + 1),
        Some(b'L') => scan_class(b, i + 1),
        Some(&byte) => Err(DescriptorError::InvalidType { offset: i, byte }),
        None => Err(DescriptorError::UnexpectedEnd { offset: i }),
    }
}

// SWAR ("SIMD within a register"): a class name is scanned eight bytes at a time in a
// `u64`, with a bit per byte saying "this byte is a ';'" (or '/', '.', '[').
const LO: u64 = 0x0101_0101_0101_0101;
const LOW7: u64 = 0x7f7f_7f7f_7f7f_7f7f;

/// `0x80` in each byte of `x` equal to `byte`, `0` in the others (exact: no false hits).
#[inline(always)]
const fn bytes_eq(x: u64, byte: u8) -> u64 {
    let y = x ^ (LO * byte as u64);
    // A byte of `y` is zero iff adding 0x7f to its low seven bits does not reach bit 7 and
    // its own bit 7 is clear.
    !(((y & LOW7) + LOW7) | y | LOW7)
}

/// The eight bytes of `b` from `p` as a little-endian `u64`, zero-padded past the end.
#[inline(always)]
fn load8(b: &[u8], p: usize) -> u64 {
    if let Some(Ok(eight)) = b.get(p..p.wrapping_add(8)).map(<[u8; 8]>::try_from) {
        return u64::from_le_bytes(eight);
    }
    let rest = b.get(p..).unwrap_or_default();
    if rest.is_empty() {
        return 0;
    }
    if let Some(Ok(last)) = b.get(b.len().wrapping_sub(8)..).map(<[u8; 8]>::try_from) {
        // Near the end of a long enough buffer: load its last eight bytes and shift out
        // those before `p` (cheaper than copying the tail).
        return u64::from_le_bytes(last) >> (8 * (8 - rest.len()));
    }
    rest.iter().rev().fold(0, |x, &c| (x << 8) | u64::from(c))
}

/// Checks a class name that starts at `start` (after the `L`) and returns the end of the
/// descriptor (after the `;`).
///
/// Eight bytes per step: find the first `;`, and before it look for a `.` or `[` or an empty
/// segment (a `/` or the `;` right after the start or after another `/`). Only when something
/// is wrong does [`class_error`] go over the name again byte by byte to say exactly where.
#[inline(always)]
fn scan_class(b: &[u8], start: usize) -> Result<usize, DescriptorError> {
    // Bit 7 set: the byte before this chunk was a segment boundary (the start counts as one).
    let mut carry: u64 = 0x80;
    let mut p = start;
    while p < b.len() {
        let x = load8(b, p);
        let semi = bytes_eq(x, b';');
        // Bytes that count: all of them, or those before the first ';' (`first_semi` is bit
        // 8k+7 for the first ';' at byte k).
        let first_semi = semi & semi.wrapping_neg();
        let before = if first_semi == 0 {
            u64::MAX
        } else {
            (first_semi >> 7) - 1
        };
        let boundary = (bytes_eq(x, b'/') & before) | first_semi;
        let bad = ((bytes_eq(x, b'.') | bytes_eq(x, b'[')) & before)
            | (boundary & ((boundary << 8) | carry));
        if bad != 0 {
            break;
        }
        if first_semi != 0 {
            return Ok(p + (first_semi.trailing_zeros() / 8) as usize + 1);
        }
        carry = boundary >> 56;
        p += 8;
    }
    Err(class_error(b, start))
}

/// The precise error in a class name that [`scan_class`] found wrong.
#[cold]
fn class_error(b: &[u8], start: usize) -> DescriptorError {
    let mut segment = start;
    let mut i = start;
    while let Some(&c) = b.get(i) {
        match c {
            b';' | b'/' if i == segment => return DescriptorError::InvalidClassName { offset: i },
            // Not reached when `scan_class` found a fault: it lies before the first ';'.
            b';' => return DescriptorError::InvalidClassName { offset: i },
            b'/' => segment = i + 1,
            b'.' | b'[' => return DescriptorError::InvalidClassName { offset: i },
            _ => {}
        }
        i += 1;
    }
    DescriptorError::UnexpectedEnd { offset: i }
}

/// The number of parameters in a descriptor (`"Ljava/lang/String;I[J"` is 3, `""` is 0),
/// checking it as it goes.
///
/// ```
/// use dubbo_codec::descriptor::arg_count;
///
/// assert_eq!(arg_count("Ljava/lang/String;I[J[[Ljava/lang/Object;Z"), Ok(5));
/// assert_eq!(arg_count(""), Ok(0));
/// assert_eq!(arg_count("Ljava/lang/String").unwrap_err().offset(), 17);
/// ```
#[inline]
pub fn arg_count<D: AsRef<[u8]> + ?Sized>(desc: &D) -> Result<usize, DescriptorError> {
    let b = desc.as_ref();
    let mut count = 0;
    let mut i = 0;
    while i < b.len() {
        i = scan_one(b, i)?;
        count += 1;
    }
    Ok(count)
}

/// A checked parameter descriptor: iterate it for the parameter types.
///
/// ```
/// use dubbo_codec::descriptor::Descriptor;
///
/// let desc = Descriptor::parse("Ljava/lang/String;I[J")?;
/// assert_eq!(desc.len(), 3);
/// let types: Vec<&str> = desc.iter().collect();
/// assert_eq!(types, ["Ljava/lang/String;", "I", "[J"]);
/// let names: Vec<String> = desc.iter().map(|t| desc_to_name(t).unwrap()).collect();
/// assert_eq!(names, ["java.lang.String", "int", "long[]"]);
/// # use dubbo_codec::descriptor::desc_to_name;
/// # Ok::<(), dubbo_codec::descriptor::DescriptorError>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Descriptor<'a> {
    desc: &'a str,
    len: usize,
}

impl<'a> Descriptor<'a> {
    /// Checks `desc` and counts its parameters.
    pub fn parse(desc: &'a str) -> Result<Self, DescriptorError> {
        let len = arg_count(desc)?;
        Ok(Descriptor { desc, len })
    }

    /// The number of parameters.
    pub fn len(&self) -> usize {
        self.len
    }

    /// True for a method without parameters (the empty descriptor).
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The descriptor string.
    pub fn as_str(&self) -> &'a str {
        self.desc
    }

    /// The parameter type descriptors, in order.
    pub fn iter(&self) -> ParamTypes<'a> {
        ParamTypes {
            rest: self.desc,
            remaining: self.len,
        }
    }
}

impl fmt::Display for Descriptor<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.desc)
    }
}

impl<'a> IntoIterator for Descriptor<'a> {
    type Item = &'a str;
    type IntoIter = ParamTypes<'a>;

    fn into_iter(self) -> ParamTypes<'a> {
        self.iter()
    }
}

impl<'a> IntoIterator for &Descriptor<'a> {
    type Item = &'a str;
    type IntoIter = ParamTypes<'a>;

    fn into_iter(self) -> ParamTypes<'a> {
        self.iter()
    }
}

/// Iterator over the parameter type descriptors of a [`Descriptor`].
#[derive(Debug, Clone)]
pub struct ParamTypes<'a> {
    rest: &'a str,
    remaining: usize,
}

impl<'a> Iterator for ParamTypes<'a> {
    type Item = &'a str;

    fn next(&mut self) -> Option<&'a str> {
        // The string was checked by `Descriptor::parse`, so this cannot fail; stop quietly
        // rather than panic if it somehow did.
        match scan_one(self.rest.as_bytes(), 0) {
            Ok(end) if self.remaining > 0 => {
                let (ty, rest) = self.rest.split_at_checked_compat(end)?;
                self.rest = rest;
                self.remaining -= 1;
                Some(ty)
            }
            _ => {
                self.remaining = 0;
                None
            }
        }
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        (self.remaining, Some(self.remaining))
    }
}

impl ExactSizeIterator for ParamTypes<'_> {}

impl std::iter::FusedIterator for ParamTypes<'_> {}

/// `str::split_at_checked` is newer than this crate's minimum Rust version.
trait SplitAtChecked {
    fn split_at_checked_compat(&self, mid: usize) -> Option<(&str, &str)>;
}

impl SplitAtChecked for str {
    fn split_at_checked_compat(&self, mid: usize) -> Option<(&str, &str)> {
        Some((self.get(..mid)?, self.get(mid..)?))
    }
}

const PRIMITIVES: [(u8, &str); 9] = [
    (b'Z', "boolean"),
    (b'B', "byte"),
    (b'C', "char"),
    (b'S', "short"),
    (b'I', "int"),
    (b'J', "long"),
    (b'F', "float"),
    (b'D', "double"),
    (b'V', "void"),
];

/// The Java type name of one type descriptor, as Java's `ReflectUtils.desc2name` gives it:
/// `I` is `int`, `[I` is `int[]`, `[[Ljava/lang/String;` is `java.lang.String[][]`.
///
/// ```
/// use dubbo_codec::descriptor::desc_to_name;
///
/// assert_eq!(desc_to_name("Ljava/lang/String;").unwrap(), "java.lang.String");
/// assert_eq!(desc_to_name("[[I").unwrap(), "int[][]");
/// assert!(desc_to_name("II").is_err());
/// ```
pub fn desc_to_name(desc: &str) -> Result<String, DescriptorError> {
    let b = desc.as_bytes();
    let end = scan_one(b, 0)?;
    if end != b.len() {
        return Err(DescriptorError::TrailingData { offset: end });
    }
    let dims = b.iter().take_while(|&&c| c == b'[').count();
    let base = desc.get(dims..).unwrap_or_default();
    let mut name = String::with_capacity(base.len() + 2 * dims);
    match PRIMITIVES.iter().find(|(c, _)| base.as_bytes() == [*c]) {
        Some((_, primitive)) => name.push_str(primitive),
        None => {
            // `L...;`
            let class = base
                .get(1..base.len().saturating_sub(1))
                .unwrap_or_default();
            name.extend(class.chars().map(|c| if c == '/' { '.' } else { c }));
        }
    }
    for _ in 0..dims {
        name.push_str("[]");
    }
    Ok(name)
}

/// The descriptor of a Java type name, as Java's `ReflectUtils.name2desc` gives it:
/// `int` is `I`, `java.lang.String[]` is `[Ljava/lang/String;`. The JVM's own spelling of
/// array classes (`Class.getName()`: `[I`, `[Ljava.lang.String;`) is accepted too.
///
/// Both spellings check class names by the same rule, the JVM's (see
/// [Validation](self#validation)), written with dots: non-empty segments without `/`, `;`
/// or `[`. Whatever else the JVM allows in a class name (spaces, `<`, `,`, non-ASCII) is
/// accepted, so `a b[]` and `[La b;` are the same type, and a name converts to a descriptor,
/// back (with [`desc_to_name`]) and again to the same descriptor. A generic type such as
/// `java.util.List<String>` is not rejected: it names a class no JVM has (Java's erased type
/// is `java.util.List`).
///
/// ```
/// use dubbo_codec::descriptor::name_to_desc;
///
/// assert_eq!(name_to_desc("java.lang.String").unwrap(), "Ljava/lang/String;");
/// assert_eq!(name_to_desc("long[][]").unwrap(), "[[J");
/// assert_eq!(name_to_desc("[Ljava.lang.String;").unwrap(), "[Ljava/lang/String;");
/// // A whole parameter list, e.g. from `--types java.lang.String,int`:
/// let desc: String = "java.lang.String,int"
///     .split(',')
///     .map(name_to_desc)
///     .collect::<Result<_, _>>()
///     .unwrap();
/// assert_eq!(desc, "Ljava/lang/String;I");
/// ```
pub fn name_to_desc(name: &str) -> Result<String, DescriptorError> {
    let mut desc = String::new();
    push_name_desc(name, &mut desc)?;
    Ok(desc)
}

/// [`name_to_desc`] appending to `out` (left as it was on error).
pub(crate) fn push_name_desc(name: &str, out: &mut String) -> Result<(), DescriptorError> {
    let start = out.len();
    let result = write_name_desc(name, out);
    if result.is_err() {
        out.truncate(start);
    }
    result
}

fn write_name_desc(name: &str, desc: &mut String) -> Result<(), DescriptorError> {
    if name.starts_with('[') {
        // `Class.getName()` of an array: already a descriptor, with dots.
        // Class names must not contain '/' in this form.
        if let Some(offset) = name.find('/') {
            return Err(DescriptorError::InvalidTypeName { offset });
        }
        let start = desc.len();
        desc.extend(name.chars().map(|c| if c == '.' { '/' } else { c }));
        let end = scan_one(&desc.as_bytes()[start..], 0)?;
        if end != name.len() {
            return Err(DescriptorError::TrailingData { offset: end });
        }
        return Ok(());
    }

    let mut base = name;
    let mut dims = 0;
    while let Some(inner) = base.strip_suffix("[]") {
        base = inner;
        dims += 1;
    }
    if dims > MAX_ARRAY_DIMENSIONS {
        return Err(DescriptorError::TooManyDimensions {
            offset: base.len() + 2 * MAX_ARRAY_DIMENSIONS,
        });
    }
    desc.reserve(base.len() + dims + 2);
    for _ in 0..dims {
        desc.push('[');
    }
    if let Some((code, _)) = PRIMITIVES.iter().find(|(_, p)| *p == base) {
        desc.push(char::from(*code));
        return Ok(());
    }
    // A class name, by the JVM's rule (the one `arg_count` and the `[L...;` spelling above
    // apply): dot-separated, non-empty segments without `/`, `;` or `[`; any other character,
    // spaces and `<>` included, is the JVM's business.
    let mut segment = 0;
    for (i, c) in base.char_indices() {
        match c {
            '.' if i == segment => return Err(DescriptorError::InvalidTypeName { offset: i }),
            '.' => segment = i + 1,
            '/' | ';' | '[' => return Err(DescriptorError::InvalidTypeName { offset: i }),
            _ => {}
        }
    }
    if segment == base.len() {
        // Empty name, or a trailing dot.
        return Err(DescriptorError::InvalidTypeName { offset: base.len() });
    }
    desc.push('L');
    desc.extend(base.chars().map(|c| if c == '.' { '/' } else { c }));
    desc.push(';');
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// The obvious byte-by-byte class scan, to check the SWAR one against.
    fn reference_scan_class(b: &[u8], start: usize) -> Result<usize, DescriptorError> {
        let mut segment = start;
        for (i, &c) in b.iter().enumerate().skip(start) {
            match c {
                b';' | b'/' if i == segment => {
                    return Err(DescriptorError::InvalidClassName { offset: i })
                }
                b';' => return Ok(i + 1),
                b'/' => segment = i + 1,
                b'.' | b'[' => return Err(DescriptorError::InvalidClassName { offset: i }),
                _ => {}
            }
        }
        Err(DescriptorError::UnexpectedEnd {
            offset: b.len().max(start),
        })
    }

    proptest! {
        #[test]
        fn swar_class_scan_matches_reference(
            s in "[a/;.\\[\u{80}\u{ff}é]{0,40}",
            start in 0usize..4,
        ) {
            let b = s.as_bytes();
            prop_assert_eq!(scan_class(b, start), reference_scan_class(b, start), "{:?} from {}", s, start);
        }

        #[test]
        fn swar_class_scan_matches_reference_on_bytes(
            b in proptest::collection::vec(prop::sample::select(vec![b'a', b'/', b';', b'.', b'[', 0, 0x80, 0xff, 0x2e ^ 0x80, 0x3b ^ 0x80]), 0..40),
            start in 0usize..4,
        ) {
            prop_assert_eq!(scan_class(&b, start), reference_scan_class(&b, start));
        }
    }

    #[test]
    fn bytes_eq_is_exact() {
        for byte in [b';', b'/', b'.', b'['] {
            for v in 0..=255u8 {
                let x = u64::from_le_bytes([v, byte, 0, 0xff, v ^ 0x80, byte, v, 1]);
                let m = bytes_eq(x, byte);
                for (k, lane) in x.to_le_bytes().iter().enumerate() {
                    assert_eq!((m >> (8 * k)) & 0xff == 0x80, *lane == byte);
                }
            }
        }
    }

    #[test]
    fn counts() {
        for (desc, n) in [
            ("", 0),
            ("I", 1),
            ("V", 1),
            ("ZBCSIJFD", 8),
            ("Ljava/lang/String;", 1),
            ("Ljava/lang/String;I[J", 3),
            ("Ljava/lang/String;I[J[[Ljava/lang/Object;Z", 5),
            (
                "Ljava/lang/String;[Ljava/lang/String;[Ljava/lang/Object;",
                3,
            ),
            ("Lcom/example/Outer$Inner;", 1),
            ("LNoPackage;", 1),
            ("Lcom/例/Ünï;J", 2),
        ] {
            assert_eq!(arg_count(desc), Ok(n), "{desc}");
            assert_eq!(arg_count(desc.as_bytes()), Ok(n), "{desc}");
            let d = Descriptor::parse(desc).unwrap();
            assert_eq!(d.len(), n);
            assert_eq!(d.iter().len(), n);
            assert_eq!(d.iter().collect::<String>(), desc);
        }
    }

    #[test]
    fn errors_with_offsets() {
        use DescriptorError::*;
        for (desc, err) in [
            ("[", UnexpectedEnd { offset: 1 }),
            ("I[", UnexpectedEnd { offset: 2 }),
            ("L", UnexpectedEnd { offset: 1 }),
            ("Ljava/lang/String", UnexpectedEnd { offset: 17 }),
            ("L;", InvalidClassName { offset: 1 }),
            ("Ljava//String;", InvalidClassName { offset: 6 }),
            ("L/a;", InvalidClassName { offset: 1 }),
            ("La/;", InvalidClassName { offset: 3 }),
            ("Ljava.lang.String;", InvalidClassName { offset: 5 }),
            ("La[;", InvalidClassName { offset: 2 }),
            (
                "IX",
                InvalidType {
                    offset: 1,
                    byte: b'X',
                },
            ),
            (
                "i",
                InvalidType {
                    offset: 0,
                    byte: b'i',
                },
            ),
            (
                ";",
                InvalidType {
                    offset: 0,
                    byte: b';',
                },
            ),
            (
                "[[ ",
                InvalidType {
                    offset: 2,
                    byte: b' ',
                },
            ),
        ] {
            assert_eq!(arg_count(desc), Err(err), "{desc}");
            assert_eq!(Descriptor::parse(desc), Err(err), "{desc}");
            assert_eq!(err.offset(), err.offset());
        }
    }

    #[test]
    fn array_dimension_limit() {
        let ok = format!("{}I", "[".repeat(255));
        assert_eq!(arg_count(&ok), Ok(1));
        let bad = format!("{}I", "[".repeat(256));
        assert_eq!(
            arg_count(&bad),
            Err(DescriptorError::TooManyDimensions { offset: 255 })
        );
        assert_eq!(
            name_to_desc(&format!("int{}", "[]".repeat(256))),
            Err(DescriptorError::TooManyDimensions { offset: 513 })
        );
        assert_eq!(name_to_desc(&format!("int{}", "[]".repeat(255))), Ok(ok));
    }

    #[test]
    fn desc_to_name_cases() {
        for (desc, name) in [
            ("Z", "boolean"),
            ("B", "byte"),
            ("C", "char"),
            ("S", "short"),
            ("I", "int"),
            ("J", "long"),
            ("F", "float"),
            ("D", "double"),
            ("V", "void"),
            ("[I", "int[]"),
            ("[[J", "long[][]"),
            ("Ljava/lang/String;", "java.lang.String"),
            ("[Ljava/lang/Object;", "java.lang.Object[]"),
            ("Lcom/example/Outer$Inner;", "com.example.Outer$Inner"),
        ] {
            assert_eq!(desc_to_name(desc).as_deref(), Ok(name), "{desc}");
            assert_eq!(name_to_desc(name).as_deref(), Ok(desc), "{name}");
        }
        assert_eq!(
            desc_to_name("IJ"),
            Err(DescriptorError::TrailingData { offset: 1 })
        );
        assert_eq!(
            desc_to_name(""),
            Err(DescriptorError::UnexpectedEnd { offset: 0 })
        );
    }

    #[test]
    fn name_to_desc_forms_and_errors() {
        assert_eq!(name_to_desc("[I").as_deref(), Ok("[I"));
        assert_eq!(
            name_to_desc("[[Ljava.util.Map;").as_deref(),
            Ok("[[Ljava/util/Map;")
        );
        assert_eq!(name_to_desc("Foo").as_deref(), Ok("LFoo;"));
        // The JVM's class-name rule, in both spellings.
        for (plain, array, desc) in [
            ("a b[]", "[La b;", "[La b;"),
            ("x<y>[][]", "[[Lx<y>;", "[[Lx<y>;"),
            ("p.a,b[]", "[Lp.a,b;", "[Lp/a,b;"),
            ("a]b[]", "[La]b;", "[La]b;"),
            ("T\0ja.S[]", "[LT\0ja.S;", "[LT\0ja/S;"),
        ] {
            assert_eq!(name_to_desc(plain).as_deref(), Ok(desc), "{plain:?}");
            assert_eq!(name_to_desc(array).as_deref(), Ok(desc), "{array:?}");
            assert_eq!(desc_to_name(desc).as_deref(), Ok(plain), "{desc:?}");
        }
        use DescriptorError::*;
        for (name, err) in [
            ("", InvalidTypeName { offset: 0 }),
            (
                "[]",
                InvalidType {
                    offset: 1,
                    byte: b']',
                },
            ),
            (".a", InvalidTypeName { offset: 0 }),
            ("a..b", InvalidTypeName { offset: 2 }),
            ("a.", InvalidTypeName { offset: 2 }),
            ("java/lang/String", InvalidTypeName { offset: 4 }),
            ("int[", InvalidTypeName { offset: 3 }),
            ("a;b", InvalidTypeName { offset: 1 }),
            ("a[b", InvalidTypeName { offset: 1 }),
            ("a[][b]", InvalidTypeName { offset: 1 }),
            ("[Ljava/lang/String;", InvalidTypeName { offset: 6 }),
            ("[Ljava.lang.String", UnexpectedEnd { offset: 18 }),
            ("[II", TrailingData { offset: 2 }),
        ] {
            assert_eq!(name_to_desc(name), Err(err), "{name:?}");
        }
    }

    #[test]
    fn iterator_is_exact_and_fused() {
        let d = Descriptor::parse("I[JLa/B;").unwrap();
        let mut it = d.into_iter();
        assert_eq!(it.len(), 3);
        assert_eq!(it.next(), Some("I"));
        assert_eq!(it.next(), Some("[J"));
        assert_eq!(it.next(), Some("La/B;"));
        assert_eq!(it.next(), None);
        assert_eq!(it.next(), None);
        assert_eq!(d.to_string(), "I[JLa/B;");
        assert!(Descriptor::parse("").unwrap().is_empty());
        assert_eq!((&d).into_iter().count(), 3);
        assert_eq!(d.as_str(), "I[JLa/B;");
    }
}
