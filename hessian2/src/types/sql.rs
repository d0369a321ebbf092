//! `java.sql.Date`, `java.sql.Time` and `java.sql.Timestamp` where Java writes them as values
//! of their own (at the top level, in lists and maps, in `Object`-typed fields): hessian-lite's
//! `SqlDateSerializer` writes an object of that class with one field, `value`, a Hessian date
//! (milliseconds; a `Timestamp`'s nanoseconds beyond them are not sent).
//!
//! A POJO field *declared* as one of these types is written as a plain date instead
//! (hessian-lite's field serializers): give such a field the type [`Date`](super::Date).

use serde::{Deserialize, Serialize};

use super::Date as UtilDate;

/// Declares a `java.sql` date type: a newtype of a `java.util.Date` under its own class.
macro_rules! sql_date {
    ($(#[$doc:meta])* $ty:ident, $class:literal) => {
        $(#[$doc])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
        #[derive(Serialize, Deserialize)]
        #[serde(rename = $class)]
        pub struct $ty {
            /// Milliseconds since 1970-01-01T00:00:00Z.
            pub value: UtilDate,
        }

        impl From<UtilDate> for $ty {
            fn from(value: UtilDate) -> Self {
                $ty { value }
            }
        }
    };
}

sql_date!(
    /// A `java.sql.Date`.
    ///
    /// ```
    /// use hessian2::types::{sql, Date};
    ///
    /// let d = sql::Date::from(Date(1_577_836_800_000));
    /// let bytes = hessian2::to_vec(&d)?;
    /// assert!(bytes.starts_with(b"C\x0djava.sql.Date\x91\x05value"));
    /// assert_eq!(hessian2::from_slice::<sql::Date>(&bytes)?, d);
    /// # Ok::<(), hessian2::Error>(())
    /// ```
    Date,
    "java.sql.Date"
);

sql_date!(
    /// A `java.sql.Time`.
    Time,
    "java.sql.Time"
);

sql_date!(
    /// A `java.sql.Timestamp` (to the millisecond, as hessian-lite sends it).
    Timestamp,
    "java.sql.Timestamp"
);
