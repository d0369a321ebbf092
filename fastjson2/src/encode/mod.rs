//! The wire-level encoder: writes values into any `bytes::BufMut` in exactly the forms
//! fastjson2's `JSONWriterJSONB` (2.0.52, as Dubbo uses it) picks:
//!
//! - ints and longs in their shortest form (Java `int` and `long` have separate code ranges, so
//!   `1` and `1L` differ on the wire); `byte` and `short` in their own fixed forms;
//! - a double that is 0 (also -0.0) or 1 in one byte, one that is whole and fits an `int` as
//!   `0xb4` and an int64 value, any other as eight bytes; a float that is whole and in -16..=47
//!   as `0xb6` and one byte (2.0.56, Dubbo 3.3.5: whole and in -2^18..2^18, as `0xb6` and its
//!   int32; see [`PeerVersion`]), any other as four bytes (NaN as Java's canonical NaN);
//! - strings by Java's rule for its compact strings ([`Encoder::write_str`]);
//! - a `Date` in whole seconds when it is whole seconds that fit an `int`, else in whole
//!   minutes when those fit (and the seconds did not), else in milliseconds;
//! - a BigDecimal of scale 0 whose unscaled value fits an int64 as `0xb8`, any other as `0xb9`,
//!   the scale and the unscaled value as an int32, an int64, or BigInteger bytes, whichever
//!   fits first; a BigInteger that fits an int64 as `0xba`, any other as its bytes;
//! - symbols (POJO field names) and type names numbered in order of first use in the document,
//!   written in full the first time and by number after (one numbering for both, as Java's
//!   writer keeps one table).

mod string;
mod symbols;

use bytes::BufMut;

use symbols::Symbols;

use crate::marker::{self, container, float, int, long, number, string as str_code, time};
use crate::types::{
    BigDecimal, BigInteger, Date, Instant, LocalDate, LocalDateTime, LocalTime, ZonedDateTime,
};

/// Writes JSONB values into a `BufMut`; one encoder per document (it numbers the document's
/// symbols), or one [`reset`](Self::reset) between documents.
#[derive(Debug)]
pub struct Encoder<B> {
    out: B,
    symbols: Symbols,
    version: PeerVersion,
}

/// The fastjson2 writer whose bytes to match. The versions Dubbo ships differ in one form.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[non_exhaustive]
pub enum PeerVersion {
    /// 2.0.52, what Dubbo 3.2.19 ships (the default): a whole `float` in -16..=47 is `0xb6` and
    /// one byte, any other `float` four bytes.
    #[default]
    V2_0_52,
    /// 2.0.56, what Dubbo 3.3.5 ships: a whole `float` in -2^18..2^18 is `0xb6` and its int32
    /// in the shortest form.
    V2_0_56,
}

/// The bytes of a `java.util.Date` of `millis` milliseconds since the epoch, and how many of
/// them there are (5 or 9): in whole seconds when it is whole seconds that fit an `int`, else
/// in whole minutes when those fit, else in milliseconds.
pub(crate) fn date_form(millis: i64) -> ([u8; 9], usize) {
    if millis % 1000 == 0 {
        let seconds = millis / 1000;
        if let Ok(s) = i32::try_from(seconds) {
            let [a, b, c, d] = s.to_be_bytes();
            return ([time::SECONDS, a, b, c, d, 0, 0, 0, 0], 5);
        }
        if let (0, Ok(m)) = (seconds % 60, i32::try_from(seconds / 60)) {
            let [a, b, c, d] = m.to_be_bytes();
            return ([time::MINUTES, a, b, c, d, 0, 0, 0, 0], 5);
        }
    }
    let [a, b, c, d, e, f, g, h] = millis.to_be_bytes();
    ([time::MILLIS, a, b, c, d, e, f, g, h], 9)
}

/// The name of [`PeerVersion`] before 0.2.
#[deprecated(
    since = "0.2.0",
    note = "renamed to `PeerVersion`, the name both data-format crates use"
)]
pub type Fastjson2Version = PeerVersion;

impl<B: BufMut> Encoder<B> {
    /// An encoder writing into `out` as fastjson2 2.0.52 does.
    pub fn new(out: B) -> Self {
        Self::with_version(out, PeerVersion::default())
    }

    /// An encoder writing into `out` as fastjson2 `version` does.
    pub fn with_version(out: B, version: PeerVersion) -> Self {
        Encoder {
            out,
            symbols: Symbols::default(),
            version,
        }
    }

    /// The fastjson2 version whose forms this encoder writes.
    pub fn version(&self) -> PeerVersion {
        self.version
    }

    /// The output.
    pub fn into_inner(self) -> B {
        self.out
    }

    /// Starts a new document: forgets the symbols numbered so far (each JSONB document has
    /// its own table), keeping the table's memory. The output is left as it is.
    pub fn reset(&mut self) {
        self.symbols.clear();
    }

    /// The output, read-only.
    pub fn get_ref(&self) -> &B {
        &self.out
    }

    /// The output, to write raw bytes into.
    pub fn get_mut(&mut self) -> &mut B {
        &mut self.out
    }

    /// `null`.
    pub fn write_null(&mut self) {
        self.out.put_u8(marker::NULL);
    }

    /// A boolean.
    pub fn write_bool(&mut self, v: bool) {
        self.out
            .put_u8(if v { marker::TRUE } else { marker::FALSE });
    }

    /// A Java `int` in its shortest form.
    #[inline]
    pub fn write_int(&mut self, v: i32) {
        // One byte (small ints, symbol numbers, lengths) inline, the wider forms behind a call.
        if (int::DIRECT_MIN..=int::DIRECT_MAX).contains(&v) {
            self.out.put_u8(v as u8);
        } else {
            self.write_wide_int(v);
        }
    }

    #[inline(never)]
    fn write_wide_int(&mut self, v: i32) {
        if (int::BYTE_MIN..=int::BYTE_MAX).contains(&v) {
            self.out
                .put_slice(&[(i32::from(int::BYTE_ZERO) + (v >> 8)) as u8, v as u8]);
        } else if (int::SHORT_MIN..=int::SHORT_MAX).contains(&v) {
            self.out.put_slice(&[
                (i32::from(int::SHORT_ZERO) + (v >> 16)) as u8,
                (v >> 8) as u8,
                v as u8,
            ]);
        } else {
            self.out.put_u8(int::FULL);
            self.out.put_i32(v);
        }
    }

    /// A Java `long` in its shortest form.
    #[inline]
    pub fn write_long(&mut self, v: i64) {
        if (long::DIRECT_MIN..=long::DIRECT_MAX).contains(&v) {
            self.out.put_u8((i64::from(long::DIRECT_ZERO) + v) as u8);
        } else {
            self.write_wide_long(v);
        }
    }

    /// `code`, then [`write_long`](Self::write_long) of `v`: a one-byte long in the same write.
    #[inline]
    fn write_coded_long(&mut self, code: u8, v: i64) {
        if (long::DIRECT_MIN..=long::DIRECT_MAX).contains(&v) {
            self.out
                .put_slice(&[code, (i64::from(long::DIRECT_ZERO) + v) as u8]);
        } else {
            self.out.put_u8(code);
            self.write_wide_long(v);
        }
    }

    #[inline(never)]
    fn write_wide_long(&mut self, v: i64) {
        if (long::BYTE_MIN..=long::BYTE_MAX).contains(&v) {
            self.out
                .put_slice(&[(i64::from(long::BYTE_ZERO) + (v >> 8)) as u8, v as u8]);
        } else if (long::SHORT_MIN..=long::SHORT_MAX).contains(&v) {
            self.out.put_slice(&[
                (i64::from(long::SHORT_ZERO) + (v >> 16)) as u8,
                (v >> 8) as u8,
                v as u8,
            ]);
        } else if let Ok(i) = i32::try_from(v) {
            self.out.put_u8(long::INT);
            self.out.put_i32(i);
        } else {
            self.out.put_u8(long::FULL);
            self.out.put_i64(v);
        }
    }

    /// A Java `byte`.
    pub fn write_byte(&mut self, v: i8) {
        self.out.put_slice(&[int::INT8, v as u8]);
    }

    /// A Java `short`.
    pub fn write_short(&mut self, v: i16) {
        self.out.put_u8(int::INT16);
        self.out.put_i16(v);
    }

    /// A Java `float`.
    pub fn write_float(&mut self, v: f32) {
        let i = v as i32;
        let whole = i as f32 == v;
        if whole && self.version == PeerVersion::V2_0_52 && (-16.0..=47.0).contains(&v) {
            self.out.put_slice(&[float::FLOAT_INT, i as u8]);
        } else if whole
            && self.version != PeerVersion::V2_0_52
            && (int::SHORT_MIN..=int::SHORT_MAX).contains(&i)
        {
            self.out.put_u8(float::FLOAT_INT);
            self.write_int(i);
        } else {
            self.out.put_u8(float::FLOAT);
            self.out
                .put_u32(if v.is_nan() { 0x7fc0_0000 } else { v.to_bits() });
        }
    }

    /// A Java `double`.
    pub fn write_double(&mut self, v: f64) {
        if v == 0.0 {
            self.out.put_u8(float::DOUBLE_0);
        } else if v == 1.0 {
            self.out.put_u8(float::DOUBLE_1);
        } else if (f64::from(i32::MIN)..=f64::from(i32::MAX)).contains(&v) && v as i64 as f64 == v {
            self.write_coded_long(float::DOUBLE_LONG, v as i64);
        } else {
            self.out.put_u8(float::DOUBLE);
            self.out.put_u64(if v.is_nan() {
                0x7ff8_0000_0000_0000
            } else {
                v.to_bits()
            });
        }
    }

    /// A Java `char` (a UTF-16 code unit).
    pub fn write_char(&mut self, v: u16) {
        self.out.put_u8(marker::CHAR);
        self.write_int(i32::from(v));
    }

    /// A `byte[]`.
    pub fn write_binary(&mut self, v: &[u8]) {
        self.out.put_u8(marker::BINARY);
        self.write_len(v.len());
        self.out.put_slice(v);
    }

    /// A `java.math.BigInteger`.
    pub fn write_big_integer(&mut self, v: &BigInteger) {
        match v.to_i64() {
            Some(l) => {
                self.write_coded_long(number::BIGINT_LONG, l);
            }
            None => self.write_big_integer_bytes(v),
        }
    }

    fn write_big_integer_bytes(&mut self, v: &BigInteger) {
        self.out.put_u8(number::BIGINT);
        self.write_len(v.as_be_bytes().len());
        self.out.put_slice(v.as_be_bytes());
    }

    /// A `java.math.BigDecimal`.
    pub fn write_big_decimal(&mut self, v: &BigDecimal) {
        if let (0, Some(l)) = (v.scale, v.unscaled.to_i64()) {
            self.write_coded_long(number::DECIMAL_LONG, l);
            return;
        }
        self.out.put_u8(number::DECIMAL);
        self.write_int(v.scale);
        if let Some(i) = v.unscaled.to_i32() {
            self.write_int(i);
        } else if let Some(l) = v.unscaled.to_i64() {
            self.write_long(l);
        } else {
            self.write_big_integer_bytes(&v.unscaled);
        }
    }

    /// A `java.util.Date` in milliseconds since the epoch.
    pub fn write_date(&mut self, millis: i64) {
        // Each length a copy of a known size.
        match date_form(millis) {
            (form, 5) => self.out.put_slice(&form[..5]),
            (form, _) => self.out.put_slice(&form),
        }
    }

    /// A [`Date`] (see [`write_date`](Self::write_date)).
    pub fn write_java_date(&mut self, v: &Date) {
        self.write_date(v.0);
    }

    /// A `java.time.Instant`.
    pub fn write_instant(&mut self, v: &Instant) {
        self.write_coded_long(time::INSTANT, v.seconds);
        self.write_int(v.nanos);
    }

    /// A `java.time.LocalDate`.
    pub fn write_local_date(&mut self, v: &LocalDate) {
        self.out.put_u8(time::LOCAL_DATE);
        self.put_date(v);
    }

    /// A `java.time.LocalTime`.
    pub fn write_local_time(&mut self, v: &LocalTime) {
        self.out.put_u8(time::LOCAL_TIME);
        self.put_time(v);
    }

    /// A `java.time.LocalDateTime`.
    pub fn write_local_date_time(&mut self, v: &LocalDateTime) {
        self.out.put_u8(time::LOCAL_DATETIME);
        self.put_date(&v.date);
        self.put_time(&v.time);
    }

    /// A `java.time.ZonedDateTime` / `OffsetDateTime`.
    pub fn write_zoned_date_time(&mut self, v: &ZonedDateTime) {
        self.out.put_u8(time::ZONED_DATETIME);
        self.put_date(&v.date_time.date);
        self.put_time(&v.date_time.time);
        self.write_str(&v.zone);
    }

    fn put_date(&mut self, v: &LocalDate) {
        self.out.put_i16(v.year);
        self.out.put_slice(&[v.month, v.day]);
    }

    fn put_time(&mut self, v: &LocalTime) {
        self.out.put_slice(&[v.hour, v.minute, v.second]);
        self.write_int(v.nano);
    }

    /// The head of an array of `len` items (which the caller writes next).
    pub fn write_array_header(&mut self, len: usize) {
        if len <= container::ARRAY_FIX_MAX {
            self.out.put_u8(container::ARRAY_FIX_FIRST + len as u8);
        } else {
            self.out.put_u8(container::ARRAY);
            self.write_len(len);
        }
    }

    /// The start of an object: key/value pairs follow, then [`write_object_end`](Self::write_object_end).
    pub fn write_object_start(&mut self) {
        self.out.put_u8(container::OBJECT);
    }

    /// The end of an object.
    pub fn write_object_end(&mut self) {
        self.out.put_u8(container::OBJECT_END);
    }

    /// A symbol (how Dubbo's writer puts POJO field names): in full with its new number the
    /// first time in the document, by number after.
    pub fn write_symbol(&mut self, name: &str) {
        self.owned_symbol(str_code::SYMBOL, name);
    }

    /// [`write_symbol`](Self::write_symbol) of a `'static` name (serde's field names), which
    /// the symbol table keeps without copying it.
    #[inline]
    pub fn write_static_symbol(&mut self, name: &'static str) {
        self.static_symbol(str_code::SYMBOL, name);
    }

    /// The Java class name of the value written next.
    pub fn write_type_name(&mut self, class: &str) {
        self.owned_symbol(marker::TYPED, class);
    }

    /// [`write_type_name`](Self::write_type_name) of a `'static` name (serde's struct names).
    pub fn write_static_type_name(&mut self, class: &'static str) {
        self.static_symbol(marker::TYPED, class);
    }

    /// `code`, then `'static` `name` by its number, or in full and with its new number the
    /// first time: the bytes the last documents wrote for it when it comes where it came
    /// there.
    #[inline]
    fn static_symbol(&mut self, code: u8, name: &'static str) {
        if let Some(def) = self.symbols.replay(code, name) {
            self.out.put_slice(def);
        } else if let Some(n) = self.symbols.lookup(name) {
            self.symbol_ref(code, n);
        } else {
            self.new_static_symbol(code, name);
        }
    }

    /// A `'static` name new in this document and not where the last documents had it (or the
    /// first name of a new encoder, which takes its thread's spare table here).
    #[inline(never)]
    fn new_static_symbol(&mut self, code: u8, name: &'static str) {
        if self.symbols.adopt_spare() {
            if let Some(def) = self.symbols.replay(code, name) {
                self.out.put_slice(def);
                return;
            }
        }
        let n = self.symbols.next_number();
        let def = self.symbols.add_static(code, name, |defs| {
            let mut e = Encoder::new(defs);
            e.write_coded_str(code, name);
            e.write_int(n);
        });
        match def {
            Some(def) => self.out.put_slice(def),
            None => {
                self.write_coded_str(code, name);
                self.write_int(n);
            }
        }
    }

    /// `code`, then `name` by its number, or in full with its new number the first time.
    fn owned_symbol(&mut self, code: u8, name: &str) {
        match self.symbols.lookup_or_add_owned(name) {
            Ok(n) => self.symbol_ref(code, n),
            Err(n) => {
                self.write_coded_str(code, name);
                self.write_int(n);
            }
        }
    }

    /// `code`, then the number of a symbol the document has.
    #[inline]
    fn symbol_ref(&mut self, code: u8, n: i32) {
        if (0..=int::DIRECT_MAX).contains(&n) {
            // The code and a one-byte number in one write (one capacity check, not two).
            self.out.put_slice(&[code, n as u8]);
        } else {
            self.out.put_u8(code);
            self.write_int(n);
        }
    }

    /// A reference to an earlier value, by its JSONPath (`hessian2`'s `write_ref` takes the
    /// earlier value's index: each format names what it points with).
    pub fn write_ref(&mut self, path: &str) {
        self.out.put_u8(marker::REFERENCE);
        self.write_str(path);
    }

    /// The name of [`Encoder::write_ref`] before 0.2.
    #[deprecated(
        since = "0.2.0",
        note = "renamed to `write_ref`, the name both data-format crates use"
    )]
    pub fn write_reference(&mut self, path: &str) {
        self.write_ref(path);
    }

    /// A length or count.
    ///
    /// # Panics
    ///
    /// Beyond `i32::MAX`: JSONB lengths are int32 values (Java's arrays cannot be longer).
    fn write_len(&mut self, len: usize) {
        let len = i32::try_from(len).expect("JSONB lengths are at most i32::MAX");
        self.write_int(len);
    }
}
