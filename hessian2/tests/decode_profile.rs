//! A driver for counting instructions of typed decoding under callgrind (not a test of
//! behaviour; `#[ignore]`d). `PROFILE_CASE` picks the data (`mix`, `mix_reused`, `user`,
//! `user_reused`, `page_reused` (the benches' 1 KiB page of users), `mix_borrowed`,
//! `value_java`, `value_java_reused` (one `ValueDecoder` reset per message), `skip_java`
//! (`skip_value` over the same bytes, as the benches' `hessian2-skip`), `decoder_skip_java`
//! (`Decoder::skip` over them, as the proxy steps over arguments), `cjk`, `emoji`;
//! `mix_floor`, `user_floor`, `page_floor`, `mix_borrowed_floor` and `value_floor` (the `Value`
//! of `value_java`) clone and drop the value instead of decoding it: the benches'
//! `owned-floor`, `borrowed-floor` and `value-floor`), `PROFILE_ITERS` the number of decodes;
//! instructions per decode are the difference of two runs divided by the difference of their
//! iteration counts:
//!
//! ```sh
//! PROFILE_CASE=mix PROFILE_ITERS=10000 valgrind --tool=callgrind \
//!     target/release/deps/decode_profile-* --ignored --exact profile --test-threads 1
//! ```
//!
//! `Mix` is the benches' `Mix` (from the `interop-model` crate).

use std::hint::black_box;

use interop_model::borrowed::{mix_borrowed, MixBorrowed};
use interop_model::{mix, page, user, Mix, User, UserPage};

fn text(unit: &str, bytes: usize) -> String {
    unit.repeat(bytes.div_ceil(unit.len()))
}

#[test]
#[ignore = "a callgrind driver, run by hand"]
fn profile() {
    let iters: usize = std::env::var("PROFILE_ITERS").map_or(1, |v| v.parse().unwrap());
    let case = std::env::var("PROFILE_CASE").unwrap_or_else(|_| "mix".into());
    match case.as_str() {
        "mix" | "mix_reused" => {
            let value = mix();
            let wire = hessian2::to_vec(&value).unwrap();
            assert_eq!(wire.len(), 169);
            if case == "mix" {
                for _ in 0..iters {
                    let m: Mix = hessian2::from_slice(black_box(&wire)).unwrap();
                    assert_eq!(black_box(m).A, 97);
                }
            } else {
                let mut de = hessian2::Deserializer::from_slice(&wire);
                for _ in 0..iters {
                    de.reset(black_box(&wire));
                    let m: Mix = de.next_value().unwrap();
                    assert_eq!(black_box(m).A, 97);
                }
            }
        }
        "user" | "user_reused" => {
            let value = user(1);
            let wire = hessian2::to_vec(&value).unwrap();
            let mut de = hessian2::Deserializer::from_slice(&wire);
            for _ in 0..iters {
                let u: User = if case == "user" {
                    hessian2::from_slice(black_box(&wire)).unwrap()
                } else {
                    de.reset(black_box(&wire));
                    de.next_value().unwrap()
                };
                assert_eq!(black_box(u), value);
            }
        }
        "page_reused" => {
            // The benches' `payload_1k`: the smallest page of users at least 1 KiB long.
            let value = page(21);
            let wire = hessian2::to_vec(&value).unwrap();
            assert!((1024..1100).contains(&wire.len()), "{}", wire.len());
            let mut de = hessian2::Deserializer::from_slice(&wire);
            for _ in 0..iters {
                de.reset(black_box(&wire));
                let p: UserPage = de.next_value().unwrap();
                assert_eq!(black_box(p).users.len(), 21);
            }
        }
        "page_floor" => {
            let value = page(21);
            for _ in 0..iters {
                assert_eq!(black_box(black_box(&value).clone()).users.len(), 21);
            }
        }
        "mix_borrowed" => {
            let value = mix();
            let wire = hessian2::to_vec(&value).unwrap();
            let expected = mix_borrowed(&value);
            let mut de = hessian2::Deserializer::from_slice(&wire);
            for _ in 0..iters {
                de.reset(black_box(&wire));
                let m: MixBorrowed = de.next_value().unwrap();
                assert_eq!(black_box(m).A, expected.A);
            }
        }
        "value_java" | "value_java_reused" => {
            use hessian2::input::SliceInput;
            use hessian2::value::{Value, ValueDecoder};
            let wire = &include_bytes!("vectors/lite3/mix_self_ref.bin")[..];
            let mut decoder = ValueDecoder::new(SliceInput::new(wire));
            for _ in 0..iters {
                let v = if case == "value_java" {
                    hessian2::value::from_slice(black_box(wire)).unwrap()
                } else {
                    decoder.reset(SliceInput::new(black_box(wire)));
                    decoder.next_value().unwrap().unwrap()
                };
                assert!(matches!(black_box(v), Value::Object(_)));
            }
        }
        "skip_java" => {
            let wire = &include_bytes!("vectors/lite3/mix_self_ref.bin")[..];
            for _ in 0..iters {
                let mut de = hessian2::Deserializer::from_slice(black_box(wire));
                de.skip_value().unwrap();
                assert_eq!(black_box(de.offset()), wire.len() as u64);
            }
        }
        "decoder_skip_java" => {
            let wire = &include_bytes!("vectors/lite3/mix_self_ref.bin")[..];
            for _ in 0..iters {
                let mut d = hessian2::decode::Decoder::new(hessian2::input::SliceInput::new(
                    black_box(wire),
                ));
                d.skip().unwrap();
                assert_eq!(black_box(d.offset()), wire.len() as u64);
            }
        }
        "mix_borrowed_floor" => {
            let value = mix();
            let expected = mix_borrowed(&value);
            for _ in 0..iters {
                assert_eq!(black_box(black_box(&expected).clone()).A, 97);
            }
        }
        "value_floor" => {
            let value =
                hessian2::value::from_slice(include_bytes!("vectors/lite3/mix_self_ref.bin"))
                    .unwrap();
            for _ in 0..iters {
                let v = black_box(&value).clone();
                assert!(matches!(black_box(v), hessian2::value::Value::Object(_)));
            }
        }
        "mix_floor" => {
            let value = mix();
            for _ in 0..iters {
                assert_eq!(black_box(black_box(&value).clone()).A, 97);
            }
        }
        "user_floor" => {
            let value = user(1);
            for _ in 0..iters {
                assert_eq!(black_box(black_box(&value).clone()).id, value.id);
            }
        }
        "cjk" | "emoji" => {
            let s = match case.as_str() {
                "cjk" => text("汉字かなカナ한글", 1024),
                _ => text("😀🚀🎉👍", 1024),
            };
            let wire = hessian2::to_vec(&s).unwrap();
            for _ in 0..iters {
                let t: String = hessian2::from_slice(black_box(&wire)).unwrap();
                assert_eq!(t.len(), s.len());
            }
        }
        other => panic!("unknown PROFILE_CASE {other}"),
    }
}
