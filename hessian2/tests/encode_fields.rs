//! How the serializer matches the field names serde gives with a struct's class definition:
//! by address (serde derive passes the same `&'static str` every time), else by text.

use serde::ser::{Serialize, SerializeStruct, Serializer};

/// Names its field with a new `&'static str` (equal text, another address) on every call.
struct Fresh;

impl Serialize for Fresh {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let name: &'static str = String::from("field").leak();
        let mut st = s.serialize_struct("com.example.Fresh", 1)?;
        st.serialize_field(name, &1)?;
        st.end()
    }
}

/// Names its field `other` from the third call on (the first `serialize` makes three: the one
/// that finds the struct unknown, the probe, the write).
struct Renamed(std::cell::Cell<u32>);

impl Serialize for Renamed {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let calls = self.0.get();
        self.0.set(calls + 1);
        let mut st = s.serialize_struct("com.example.Renamed", 1)?;
        st.serialize_field(if calls < 3 { "field" } else { "other" }, &1)?;
        st.end()
    }
}

#[test]
fn a_field_name_at_another_address_is_the_same_field() {
    let mut ser = hessian2::Serializer::new(Vec::new());
    ser.serialize(&Fresh).unwrap();
    ser.serialize(&Fresh).unwrap();
    assert_eq!(
        ser.get_ref(),
        b"C\x11com.example.Fresh\x91\x05field\x60\x91\x60\x91"
    );
}

#[test]
fn another_field_name_is_an_error() {
    let renamed = Renamed(Default::default());
    let mut ser = hessian2::Serializer::new(Vec::new());
    ser.serialize(&renamed).unwrap();
    let err = ser.serialize(&renamed).unwrap_err().to_string();
    assert!(err.contains("`other`") && err.contains("`field`"), "{err}");
}
