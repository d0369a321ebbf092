//! Every byte code of Hessian 2.0, one file per type family.
//!
//! The first byte of every Hessian value says what follows. Many families use a *range* of codes
//! so that small values fit in the code byte itself ("compact" forms). The constants here name
//! each code and each range; [`classify`] maps any byte to the family it starts.
//!
//! ```text
//! 0x00-0x1f  string, length 0-31 in the code      0x60-0x6f  object, class index 0-15
//! 0x20-0x2f  binary, length 0-15 in the code      0x70-0x77  typed list, length 0-7
//! 0x30-0x33  string, 10-bit length                0x78-0x7f  untyped list, length 0-7
//! 0x34-0x37  binary, 10-bit length                0x80-0xbf  int, one byte (-16..=47)
//! 0x38-0x3f  long, three bytes (-2^18..2^18)      0xc0-0xcf  int, two bytes (-2048..=2047)
//! 0x40-0x5f  one code per value kind ('B', 'C',   0xd0-0xd7  int, three bytes (-2^18..2^18)
//!            'D', 'F', 'H', 'I', ... see below)   0xd8-0xef  long, one byte (-8..=15)
//!                                                 0xf0-0xff  long, two bytes (-2048..=2047)
//! ```
//! Four codes are reserved and never valid: `0x40`, `0x45` (`E`), `0x47` (`G`), `0x50` (`P`).

pub mod binary;
pub mod date;
pub mod double;
pub mod int;
pub mod list;
pub mod long;
pub mod map;
pub mod object;
pub mod reference;
pub mod string;

/// `N`: null.
pub const NULL: u8 = b'N';
/// `T`: boolean true.
pub const TRUE: u8 = b'T';
/// `F`: boolean false.
pub const FALSE: u8 = b'F';

/// Codes the Hessian 2.0 grammar reserves; Java's `Hessian2Input` rejects them.
pub const RESERVED: [u8; 4] = [0x40, 0x45, 0x47, 0x50];

/// The type family a byte code starts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Family {
    /// `N`.
    Null,
    /// `T` or `F`.
    Bool,
    /// 32-bit int, any of its four forms.
    Int,
    /// 64-bit long, any of its five forms.
    Long,
    /// IEEE double, any of its six forms.
    Double,
    /// Date in milliseconds or minutes.
    Date,
    /// String chunk (compact or `R`/`S`).
    String,
    /// Binary chunk (compact or `A`/`B`).
    Binary,
    /// List, typed or untyped, fixed or variable length.
    List,
    /// Map, typed (`M`) or untyped (`H`).
    Map,
    /// Class definition `C`.
    ClassDef,
    /// Object instance (`O` or compact).
    Object,
    /// Reference `Q` to an earlier list, map or object.
    Ref,
    /// `Z`, the end of a variable-length list or a map.
    End,
    /// A reserved code: always an error.
    Reserved,
}

/// Which family the value starting with `code` belongs to.
#[inline]
pub const fn classify(code: u8) -> Family {
    match code {
        0x00..=0x1f | 0x30..=0x33 | string::CHUNK | string::FINAL => Family::String,
        0x20..=0x2f | 0x34..=0x37 | binary::CHUNK | binary::FINAL => Family::Binary,
        0x38..=0x3f | 0xd8..=0xff | long::INT32 | long::FULL => Family::Long,
        0x80..=0xd7 | int::FULL => Family::Int,
        double::ZERO..=double::MILLS | double::FULL => Family::Double,
        date::MILLIS | date::MINUTES => Family::Date,
        0x60..=0x6f | object::INSTANCE => Family::Object,
        0x70..=0x7f | list::VARIABLE..=list::FIXED_UNTYPED => Family::List,
        map::TYPED | map::UNTYPED => Family::Map,
        object::DEFINITION => Family::ClassDef,
        reference::REF => Family::Ref,
        NULL => Family::Null,
        TRUE | FALSE => Family::Bool,
        list::END => Family::End,
        _ => Family::Reserved,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reserved_codes_are_exactly_the_four_the_grammar_leaves_out() {
        let reserved: Vec<u8> = (0..=255u8)
            .filter(|&c| classify(c) == Family::Reserved)
            .collect();
        assert_eq!(reserved, RESERVED);
    }

    #[test]
    fn every_letter_code_lands_in_its_family() {
        assert_eq!(classify(b'I'), Family::Int);
        assert_eq!(classify(b'L'), Family::Long);
        assert_eq!(classify(b'Y'), Family::Long);
        assert_eq!(classify(b'D'), Family::Double);
        assert_eq!(classify(0x5f), Family::Double);
        assert_eq!(classify(b'J'), Family::Date);
        assert_eq!(classify(b'K'), Family::Date);
        assert_eq!(classify(b'R'), Family::String);
        assert_eq!(classify(b'A'), Family::Binary);
        assert_eq!(classify(b'U'), Family::List);
        assert_eq!(classify(b'X'), Family::List);
        assert_eq!(classify(b'M'), Family::Map);
        assert_eq!(classify(b'H'), Family::Map);
        assert_eq!(classify(b'C'), Family::ClassDef);
        assert_eq!(classify(b'O'), Family::Object);
        assert_eq!(classify(b'Q'), Family::Ref);
        assert_eq!(classify(b'Z'), Family::End);
    }
}
