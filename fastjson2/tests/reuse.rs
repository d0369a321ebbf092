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

/// `to_vec` on a thread of its own, whose encoders kept nothing yet.
fn fresh<T: Serialize + Sync>(v: &T) -> Vec<u8> {
    std::thread::scope(|s| s.spawn(|| fastjson2::to_vec(v).unwrap()).join().unwrap())
}

/// The `'static` names' definitions an encoder keeps from one document for the next are
/// written again only where they fit: documents of other structs, with fields left out, in
/// another order, give what an encoder that kept nothing gives (Java's bytes where there are
/// vectors).
#[test]
fn kept_symbol_definitions_fit_any_next_document() {
    let user = jsonb::alice();
    let sparse = jsonb::User {
        age: 0,
        email: None,
        ..jsonb::alice()
    };
    let (mix, plain) = (jsonb::mix(), jsonb::mix_no_self_ref());
    let mut ser = fastjson2::Serializer::new(Vec::new());
    for _ in 0..2 {
        write_again(&mut ser, &user);
        assert_eq!(ser.get_ref(), include_bytes!("vectors/user.bin"));
        write_again(&mut ser, &sparse);
        assert_eq!(ser.get_ref(), &fresh(&sparse));
        write_again(&mut ser, &mix);
        assert_eq!(ser.get_ref(), &fresh(&mix));
        write_again(&mut ser, &plain);
        assert_eq!(ser.get_ref(), include_bytes!("vectors/mix.bin"));
        write_again(&mut ser, &(&sparse, &user));
        assert_eq!(ser.get_ref(), &fresh(&(&sparse, &user)));
    }
}

/// Names by copy (a `Value`'s) and `'static` names in one document: a `'static` name equal to
/// a copy is the copy's symbol, whatever the last document kept.
#[test]
fn kept_symbol_definitions_and_copies() {
    // (by copy, name) in order; the same names in other orders and kinds.
    let docs: [&[(bool, &'static str)]; 4] = [
        &[
            (false, "id"),
            (false, "name"),
            (false, "age"),
            (false, "id"),
        ],
        &[(true, "id"), (false, "id"), (false, "name"), (false, "age")],
        &[
            (false, "id"),
            (true, "name"),
            (false, "name"),
            (false, "age"),
        ],
        &[
            (false, "age"),
            (false, "id"),
            (false, "name"),
            (true, "age"),
        ],
    ];
    let write = |e: &mut fastjson2::encode::Encoder<Vec<u8>>, doc: &[(bool, &'static str)]| {
        for &(copy, name) in doc {
            if copy {
                e.write_symbol(name);
            } else {
                e.write_static_symbol(name);
            }
        }
    };
    let mut e = fastjson2::encode::Encoder::new(Vec::new());
    for _ in 0..2 {
        for doc in docs.iter().chain(docs.iter().rev()) {
            e.reset();
            e.get_mut().clear();
            write(&mut e, doc);
            let want = std::thread::scope(|s| {
                s.spawn(|| {
                    let mut fresh = fastjson2::encode::Encoder::new(Vec::new());
                    write(&mut fresh, doc);
                    fresh.into_inner()
                })
                .join()
                .unwrap()
            });
            assert_eq!(e.get_ref(), &want, "{doc:?}");
        }
    }
}
