//! Java exceptions as they travel in responses.
//!
//! A provider whose method throws answers with status OK and result flag
//! `RESPONSE_WITH_EXCEPTION`; the value is the `Throwable` itself, written by hessian-lite's
//! `JavaSerializer` like any object: class name = the exception class, fields (for every
//! `Throwable` without fields of its own) `suppressedExceptions`, `stackTrace`, `cause`,
//! `detailMessage`. `cause` refers back to the exception itself (`Q`) when there is no cause,
//! which is how `Throwable` marks "not initialised".
//!
//! A generic call (`$invoke`) receives `org.apache.dubbo.rpc.service.GenericException`
//! instead (Java's `GenericFilter` wraps the real exception), whose `exceptionClass` and
//! `exceptionMessage` fields name the original; [`JavaException`] reads through it.

use std::fmt;

use hessian2::value::{Object, Value};

/// The class of the exceptions Dubbo's generic calls receive (2.7+).
pub const GENERIC_EXCEPTION: &str = "org.apache.dubbo.rpc.service.GenericException";
/// The same class under the old `com.alibaba` package (Dubbo 2.6 compatibility).
pub const GENERIC_EXCEPTION_ALIBABA: &str = "com.alibaba.dubbo.rpc.service.GenericException";

/// The fields hessian-lite writes for a `Throwable` that has none of its own, in wire order.
pub const THROWABLE_FIELDS: [&str; 4] = [
    "suppressedExceptions",
    "stackTrace",
    "cause",
    "detailMessage",
];

/// A Java exception: its class, its message and the whole object as received.
#[derive(Debug, Clone, PartialEq)]
pub struct JavaException {
    /// The exception class (`java.lang.IllegalStateException`); for a `GenericException`,
    /// the class of the exception it wraps.
    pub class: String,
    /// The message (`detailMessage`; for a `GenericException`, `exceptionMessage`).
    pub message: Option<String>,
    /// The exception object as it was on the wire (references count from the start of the
    /// response body).
    pub value: Value,
}

impl JavaException {
    /// An exception of class `class` with `message`, shaped as hessian-lite writes a
    /// `Throwable` (empty stack trace, no suppressed exceptions, no cause), ready to be the
    /// value of an exception response: its `cause` refers to the first object of the body,
    /// itself.
    pub fn new(class: impl Into<String>, message: Option<String>) -> Self {
        let class = class.into();
        let value = throwable(&class, message.as_deref());
        JavaException {
            class,
            message,
            value,
        }
    }

    /// A `java.lang.RuntimeException` with `message`.
    pub fn runtime(message: impl Into<String>) -> Self {
        JavaException::new("java.lang.RuntimeException", Some(message.into()))
    }

    /// Reads an exception from a decoded value: an object whose class and `detailMessage`
    /// are taken (a `GenericException` is read through). Any other value is kept with class
    /// `"?"` and its display as the message, so that nothing a peer sends is lost.
    pub fn from_value(value: Value) -> Self {
        match &value {
            Value::Object(o) => {
                let generic =
                    &*o.class == GENERIC_EXCEPTION || &*o.class == GENERIC_EXCEPTION_ALIBABA;
                let (class, message) = if generic {
                    (
                        o.get("exceptionClass")
                            .and_then(Value::as_str)
                            .unwrap_or(&o.class)
                            .to_owned(),
                        o.get("exceptionMessage")
                            .and_then(Value::as_str)
                            .or_else(|| o.exception_message())
                            .map(str::to_owned),
                    )
                } else {
                    (
                        o.class.to_string(),
                        o.exception_message().map(str::to_owned),
                    )
                };
                JavaException {
                    class,
                    message,
                    value,
                }
            }
            other => JavaException {
                class: "?".to_owned(),
                message: Some(format!("{other:?}")),
                value,
            },
        }
    }
}

impl JavaException {
    /// The exception this one was caused by (Java's `getCause()`), read from its `cause`
    /// field; `None` when there is none: no field, `null`, or a reference, which is how
    /// `Throwable` marks "no cause" (its `cause` is itself).
    pub fn cause(&self) -> Option<JavaException> {
        match self.object()?.get("cause")? {
            cause @ Value::Object(_) => Some(JavaException::from_value(cause.clone())),
            _ => None,
        }
    }

    /// This exception and its causes, outermost first (Java's "Caused by:" lines).
    pub fn chain(&self) -> impl Iterator<Item = JavaException> {
        std::iter::successors(Some(self.clone()), JavaException::cause)
    }

    /// The stack trace the exception was sent with (empty when the peer sent none), innermost
    /// call first as Java prints it; read from hessian-lite's and fastjson2's forms alike.
    pub fn stack_trace(&self) -> Vec<StackFrame> {
        let Some(Value::List(frames)) = self.object().and_then(|o| o.get("stackTrace")) else {
            return Vec::new();
        };
        frames
            .items
            .iter()
            .filter_map(StackFrame::from_value)
            .collect()
    }

    fn object(&self) -> Option<&Object> {
        self.value.as_object()
    }
}

/// One line of a Java stack trace (a `java.lang.StackTraceElement`).
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct StackFrame {
    /// The class of the method (`com.example.OrderService`).
    pub class: String,
    /// The method (`advance`).
    pub method: String,
    /// The source file, when the class was compiled with it.
    pub file: Option<String>,
    /// The line number; negative when unknown (-2 for a native method), as Java keeps it.
    pub line: i32,
}

impl StackFrame {
    /// A frame as hessian-lite writes it (a `java.lang.StackTraceElement` object, the class in
    /// `declaringClass`) or as fastjson2 does (a map, the class in `className`).
    fn from_value(v: &Value) -> Option<StackFrame> {
        let field = |name: &str| -> Option<&Value> {
            match v {
                Value::Object(o) => o.get(name),
                Value::Map(m) => m
                    .entries
                    .iter()
                    .find(|(k, _)| k.as_str() == Some(name))
                    .map(|(_, v)| v),
                _ => None,
            }
        };
        let text = |name: &str| field(name).and_then(Value::as_str).map(str::to_owned);
        Some(StackFrame {
            class: text("declaringClass").or_else(|| text("className"))?,
            method: text("methodName").unwrap_or_default(),
            file: text("fileName"),
            line: field("lineNumber")
                .and_then(Value::as_i64)
                .and_then(|n| i32::try_from(n).ok())
                .unwrap_or(-1),
        })
    }
}

/// As Java prints the frame: `com.example.OrderService.advance(OrderService.java:42)`.
impl fmt::Display for StackFrame {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}.{}(", self.class, self.method)?;
        match (&self.file, self.line) {
            (_, -2) => f.write_str("Native Method)"),
            (Some(file), line) if line >= 0 => write!(f, "{file}:{line})"),
            (Some(file), _) => write!(f, "{file})"),
            (None, _) => f.write_str("Unknown Source)"),
        }
    }
}

impl fmt::Display for JavaException {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.message {
            Some(m) => write!(f, "{}: {}", self.class, m),
            None => f.write_str(&self.class),
        }
    }
}

impl std::error::Error for JavaException {}

/// A `Throwable` object as hessian-lite writes it, the first object of its stream.
fn throwable(class: &str, message: Option<&str>) -> Value {
    Value::Object(Object::new(
        class,
        [
            (
                THROWABLE_FIELDS[0],
                Value::typed_list("java.util.Collections$EmptyList", Vec::new()),
            ),
            (
                THROWABLE_FIELDS[1],
                Value::typed_list("[java.lang.StackTraceElement", Vec::new()),
            ),
            (THROWABLE_FIELDS[2], Value::Ref(0)),
            (
                THROWABLE_FIELDS[3],
                message.map_or(Value::Null, Value::from),
            ),
        ],
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// hessian-lite 3.2 writing `new RuntimeException("boom")` with an empty stack trace
    /// (the Hessian vector `exception_runtime`).
    const JAVA_RUNTIME_BOOM: &[u8] = b"C\x1ajava.lang.RuntimeException\x94\x14suppressedExceptions\x0astackTrace\x05cause\x0ddetailMessage`p\x1fjava.util.Collections$EmptyListp\x1c[java.lang.StackTraceElementQ\x90\x04boom";

    #[test]
    fn new_is_what_java_writes() {
        let e = JavaException::runtime("boom");
        assert_eq!(hessian2::value::to_vec(&e.value), JAVA_RUNTIME_BOOM);
        let back =
            JavaException::from_value(hessian2::value::from_slice(JAVA_RUNTIME_BOOM).unwrap());
        assert_eq!(back, e);
        assert_eq!(back.to_string(), "java.lang.RuntimeException: boom");
    }

    /// hessian-lite 3.2 writing `new IllegalStateException("outer", new IOException("inner"))`
    /// with empty stack traces (the Hessian vector `exception_cause_chain`).
    const JAVA_CAUSE_CHAIN: &[u8] = b"C\x1fjava.lang.IllegalStateException\x94\x14suppressedExceptions\x0astackTrace\x05cause\x0ddetailMessage`p\x1fjava.util.Collections$EmptyListp\x1c[java.lang.StackTraceElementC\x13java.io.IOException\x94\x14suppressedExceptions\x0astackTrace\x05cause\x0ddetailMessageaQ\x91p\x91Q\x93\x05inner\x05outer";

    #[test]
    fn the_cause_chain_is_read_as_java_holds_it() {
        let e = JavaException::from_value(hessian2::value::from_slice(JAVA_CAUSE_CHAIN).unwrap());
        let chain: Vec<String> = e.chain().map(|e| e.to_string()).collect();
        assert_eq!(
            chain,
            [
                "java.lang.IllegalStateException: outer",
                "java.io.IOException: inner"
            ]
        );
        assert!(e.stack_trace().is_empty());
        // A Throwable with no cause refers to itself: no cause.
        assert_eq!(JavaException::runtime("boom").cause(), None);
    }

    #[test]
    fn stack_frames_print_as_java_prints_them() {
        let frame = |file: Option<&str>, line: i32| {
            let mut fields = vec![
                ("declaringClass", Value::from("com.example.S")),
                ("methodName", Value::from("m")),
                ("lineNumber", Value::Int(line)),
            ];
            if let Some(f) = file {
                fields.push(("fileName", Value::from(f)));
            }
            Value::Object(Object::new("java.lang.StackTraceElement", fields))
        };
        let e = JavaException::from_value(Value::Object(Object::new(
            "java.lang.RuntimeException",
            [
                (
                    "stackTrace",
                    Value::typed_list(
                        "[java.lang.StackTraceElement",
                        vec![frame(Some("S.java"), 42), frame(None, -2), frame(None, -1)],
                    ),
                ),
                ("cause", Value::Ref(0)),
                ("detailMessage", Value::from("x")),
            ],
        )));
        let printed: Vec<String> = e.stack_trace().iter().map(|f| f.to_string()).collect();
        assert_eq!(
            printed,
            [
                "com.example.S.m(S.java:42)",
                "com.example.S.m(Native Method)",
                "com.example.S.m(Unknown Source)"
            ]
        );
    }

    #[test]
    fn generic_exception_is_read_through() {
        let v = Value::Object(Object::new(
            GENERIC_EXCEPTION,
            [
                ("detailMessage", Value::from("wrapped")),
                (
                    "exceptionClass",
                    Value::from("java.lang.IllegalStateException"),
                ),
                ("exceptionMessage", Value::from("bad")),
            ],
        ));
        let e = JavaException::from_value(v);
        assert_eq!(e.class, "java.lang.IllegalStateException");
        assert_eq!(e.message.as_deref(), Some("bad"));
        let odd = JavaException::from_value(Value::Int(3));
        assert_eq!(odd.class, "?");
    }
}
