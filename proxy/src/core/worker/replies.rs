//! The bodies of the answers the proxy makes itself, in the caller's serialization.
//!
//! A Java consumer decodes a response with the serialization its header names, so every
//! answer is written in the serialization of the call it answers (a heartbeat's answer echoes
//! the heartbeat, see `downstream`): its error message as that serialization's `writeUTF`, its
//! read-only event as its `"R"`. All are encoded once per worker, never per call. A call in a
//! serialization dubbo-codec cannot write is answered in Hessian2, with serialization id 2:
//! Java reads a response in the id its header names, and every Dubbo has Hessian2.

use bytes::Bytes;
use dubbo_codec::response::error_body_in;
use dubbo_codec::{BodyFormat, Event, Serialization};

use super::Reason;

/// Serialization ids fit in five bits.
const IDS: usize = 32;

/// What the proxy answers in one serialization.
struct Set {
    /// The serialization the answers are written in.
    serialization: Serialization,
    /// The error message of each [`Reason`], by its index.
    reasons: Vec<Bytes>,
    /// The read-only event.
    read_only: Bytes,
}

impl Set {
    fn new(format: BodyFormat) -> Set {
        Set {
            serialization: format.serialization(),
            reasons: Reason::ALL
                .iter()
                .map(|r| error_body_in(format, Some(r.message())))
                .collect(),
            read_only: Event::ReadOnly.body_in(format).unwrap_or_default(),
        }
    }
}

/// Every answer body, per serialization id of the caller.
pub(super) struct Replies {
    /// Index: the caller's serialization id; `None`: answered with `hessian2`.
    sets: Vec<Option<Set>>,
    hessian2: Set,
    /// Per unreadable serialization id, the message saying routes needed its body, in
    /// Hessian2.
    unreadable: Vec<Bytes>,
}

impl Replies {
    pub(super) fn new() -> Replies {
        let sets = (0..IDS as u8)
            .map(|id| BodyFormat::of(Serialization::from_id(id)).map(Set::new))
            .collect();
        let unreadable = (0..IDS as u8)
            .map(|id| {
                error_body_in(
                    BodyFormat::default(),
                    Some(&format!(
                        "dubbo-proxy: cannot read request bodies in serialization {}, and the routes need this call's service, method, group or attachments to route it",
                        Serialization::from_id(id)
                    )),
                )
            })
            .collect();
        Replies {
            sets,
            hessian2: Set::new(BodyFormat::default()),
            unreadable,
        }
    }

    fn set(&self, serialization_id: u8) -> &Set {
        self.sets
            .get(usize::from(serialization_id))
            .and_then(Option::as_ref)
            .unwrap_or(&self.hessian2)
    }

    /// The serialization and body of the answer for `reason` to a caller in
    /// `serialization_id`.
    pub(super) fn reason(&self, serialization_id: u8, reason: Reason) -> (Serialization, &Bytes) {
        if reason == Reason::Unreadable {
            if let Some(body) = self.unreadable.get(usize::from(serialization_id)) {
                return (Serialization::Hessian2, body);
            }
        }
        let set = self.set(serialization_id);
        (set.serialization, &set.reasons[reason as usize])
    }

    /// The serialization and body of the read-only event for a caller in `serialization_id`.
    pub(super) fn read_only(&self, serialization_id: u8) -> (Serialization, &Bytes) {
        let set = self.set(serialization_id);
        (set.serialization, &set.read_only)
    }
}
