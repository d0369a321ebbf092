//! A reused `Serializer` / `Deserializer` gives each message exactly what the one-shot
//! functions give: nothing of one document's symbol table leaks into the next.

use interop_model::jsonb;
use serde::Serialize;

/// Writes `v` with the reused `ser` and compares with `to_vec`.
fn write_again<T: Serialize>(ser: &mut fastjson2::Serializer<Vec<u8>>, v: &T) {
    ser.reset();
    ser.get_mut().clear();
    v.serialize(&mut *ser).unwrap();
    assert_eq!(ser.get_ref(), &fastjson2::to_vec(v).unwrap());
}

#[test]
fn reused_serializer_writes_what_to_vec_writes() {
    let (user, mix) = (jsonb::alice(), jsonb::mix());
    let mut ser = fastjson2::Serializer::new(Vec::new());
    for _ in 0..3 {
        write_again(&mut ser, &user);
        write_again(&mut ser, &mix);
    }
}

#[test]
fn reused_deserializer_reads_what_from_slice_reads() {
    let user = fastjson2::to_vec(&jsonb::alice()).unwrap();
    let mix = fastjson2::to_vec(&jsonb::mix()).unwrap();
    let mut de = fastjson2::Deserializer::new(&[]);
    for _ in 0..3 {
        de.reset(&user);
        assert_eq!(de.next_value::<jsonb::User>().unwrap(), jsonb::alice());
        de.end().unwrap();
        de.reset(&mix);
        assert_eq!(de.next_value::<jsonb::Mix>().unwrap(), jsonb::mix());
        de.end().unwrap();
    }
    // A document cut short fails as from_slice fails, and the next reset starts clean.
    de.reset(&user[..user.len() - 1]);
    assert!(de.next_value::<jsonb::User>().unwrap_err().is_eof());
    de.reset(&user);
    assert_eq!(de.next_value::<jsonb::User>().unwrap(), jsonb::alice());
}
