//! `Stream::from_slice` on arbitrary bytes: never panics, never loops, never allocates beyond the
//! input; every error's offset lies within the input. Also exercises `Display`, `Stream::resolve`
//! and the `Error::is_eof` contract that streaming callers rely on.
#![no_main]

use hessian2::value::{self, Stream, Value};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    match Stream::from_slice(data) {
        Err(e) => {
            assert!(
                e.offset() <= data.len() as u64,
                "error offset {} past the input ({} bytes): {e:?}",
                e.offset(),
                data.len()
            );
            if let hessian2::ErrorKind::Eof { needed } = e.kind() {
                assert!(*needed >= 1, "Eof needing 0 bytes: {e:?}");
            }
        }
        Ok(stream) => {
            for v in &stream.values {
                let _ = format!("{v} {v:#}");
                visit_refs(v, &mut |n| {
                    // The decoder only accepts references to containers already started.
                    assert!(stream.resolve(n).is_some(), "unresolvable reference {n}");
                });
            }
            // `from_slice` reads exactly one value.
            let one = value::from_slice(data);
            match stream.values.len() {
                1 => assert!(
                    fuzz_support::identical(
                        std::slice::from_ref(one.as_ref().unwrap()),
                        &stream.values
                    ),
                    "from_slice and Stream disagree"
                ),
                _ => assert!(
                    one.is_err(),
                    "from_slice accepted {} values",
                    stream.values.len()
                ),
            }
            // A stream cut short decodes to fewer values or reports "need more bytes": never a
            // corrupt-input error (the Dubbo codec waits for more bytes on Eof).
            if let Some(prefix) = data.len().checked_sub(1).map(|n| &data[..n]) {
                if let Err(e) = Stream::from_slice(prefix) {
                    assert!(e.is_eof(), "prefix of a valid stream gives {e:?}");
                }
            }
        }
    }
});

fn visit_refs(v: &Value, f: &mut impl FnMut(u32)) {
    match v {
        Value::Ref(n) => f(*n),
        Value::List(l) => l.items.iter().for_each(|i| visit_refs(i, f)),
        Value::Map(m) => m.entries.iter().for_each(|(k, v)| {
            visit_refs(k, f);
            visit_refs(v, f)
        }),
        Value::Object(o) => o.values.iter().for_each(|i| visit_refs(i, f)),
        _ => {}
    }
}
