//! [`Mix`] and [`User`] with their text borrowed from the input (`&str`): the benches'
//! `hessian2-borrowed-reused` rows and the callgrind driver's `mix_borrowed` case decode these,
//! without copying what the wire holds as plain UTF-8 (the `double[]`s and the nested `Mix`
//! still allocate: 4 allocations instead of 8; `User`: none).
#![allow(non_snake_case)]

use hessian2::types::{Date, JavaArray};
use serde::Deserialize;

use crate::{Mix, MixDOf, User};

/// [`Mix`] with `&str` text.
#[derive(Deserialize, Debug, Clone, PartialEq)]
pub struct MixBorrowed<'a> {
    #[serde(borrow)]
    pub D: Option<MixDOf<JavaArray<f64>, MixBorrowed<'a>>>,
    #[serde(with = "hessian2::types::java_array")]
    pub CD: Vec<f64>,
    pub CA: Date,
    pub CC: &'a str,
    pub CB: i64,
    pub B: &'a str,
    pub A: i32,
}

/// `m` with its text borrowed from it: what decoding `m`'s bytes into a [`MixBorrowed`] gives.
pub fn mix_borrowed(m: &Mix) -> MixBorrowed<'_> {
    MixBorrowed {
        D: m.D.as_ref().map(|d| MixDOf {
            a: d.a,
            floats: d.floats.clone(),
            m: d.m.as_ref().map(|inner| Box::new(mix_borrowed(inner))),
        }),
        CD: m.CD.clone(),
        CA: m.CA,
        CC: &m.CC,
        CB: m.CB,
        B: &m.B,
        A: m.A,
    }
}

/// [`User`] with `&str` text (no allocation at all).
#[derive(Deserialize, Debug, Clone, PartialEq)]
pub struct UserBorrowed<'a> {
    pub created: Option<Date>,
    pub active: bool,
    pub email: Option<&'a str>,
    pub age: i32,
    pub name: Option<&'a str>,
    pub id: i64,
}

/// `u` with its text borrowed from it.
pub fn user_borrowed(u: &User) -> UserBorrowed<'_> {
    UserBorrowed {
        created: u.created,
        active: u.active,
        email: u.email.as_deref(),
        age: u.age,
        name: u.name.as_deref(),
        id: u.id,
    }
}
