//! Reading a socket into a block's spare capacity.
//!
//! `BytesMut` does not remember that the capacity past its length was written before, so a
//! safe `read(&mut [u8])` into it needs that room zeroed first, on every read: a `memset`
//! as large as the read itself. [`read_into`] hands the spare capacity to `read(2)` as
//! uninitialised memory instead and marks initialised what the kernel wrote. The
//! `proxy_load` bench measures the difference (`read_zeroed` vs `read_into`), which is why
//! this `unsafe` is here; `cargo +nightly miri test -p dubbo-proxy --lib buffer` runs the
//! tests below, through the real `read(2)` on a socketpair, under Miri.

#![allow(unsafe_code)]

use std::io;
use std::os::fd::{AsRawFd, RawFd};

use bytes::BytesMut;

/// Reads from `fd` into the spare capacity of `buf` (at most `max` bytes) and extends `buf`
/// by what was read. `Ok(0)`: end of stream (or no room).
pub fn read_into(fd: &impl AsRawFd, buf: &mut BytesMut, max: usize) -> io::Result<usize> {
    read_fd(fd.as_raw_fd(), buf, max)
}

fn read_fd(fd: RawFd, buf: &mut BytesMut, max: usize) -> io::Result<usize> {
    let spare = buf.spare_capacity_mut();
    let room = spare.len().min(max);
    // SAFETY: `spare` is the spare capacity of `buf`, exclusively borrowed here: its first
    // `room` bytes are valid for writes and nothing else reads or writes them during the
    // call. `read(2)` writes at most `room` bytes there and never reads them, so passing
    // uninitialised memory is sound (no `&mut [u8]` to uninitialised bytes is ever made).
    let n = unsafe { libc::read(fd, spare.as_mut_ptr().cast(), room) };
    if n < 0 {
        return Err(io::Error::last_os_error());
    }
    let n = n as usize;
    debug_assert!(n <= room);
    let len = buf.len();
    // SAFETY: the kernel initialised the `n <= room <= capacity - len` bytes after the
    // current length; the length stays within the capacity.
    unsafe { buf.set_len(len + n.min(room)) };
    Ok(n)
}

/// The safe way, for comparison: zeroes the room, reads, truncates.
#[cfg(any(test, feature = "internals"))]
pub fn read_zeroed(r: &mut impl io::Read, buf: &mut BytesMut, max: usize) -> io::Result<usize> {
    let len = buf.len();
    let room = (buf.capacity() - len).min(max);
    buf.resize(len + room, 0);
    let res = r.read(&mut buf[len..]);
    let n = *res.as_ref().unwrap_or(&0);
    buf.truncate(len + n);
    res
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::fd::{FromRawFd, OwnedFd};

    fn socketpair() -> (OwnedFd, OwnedFd) {
        let mut fds = [0; 2];
        // SAFETY: `fds` has room for the two descriptors socketpair(2) writes.
        let r = unsafe { libc::socketpair(libc::AF_UNIX, libc::SOCK_STREAM, 0, fds.as_mut_ptr()) };
        assert_eq!(r, 0);
        // SAFETY: both descriptors were just created and are owned by nobody else.
        unsafe { (OwnedFd::from_raw_fd(fds[0]), OwnedFd::from_raw_fd(fds[1])) }
    }

    fn send(fd: &OwnedFd, data: &[u8]) {
        // SAFETY: `data` is valid for reads of `data.len()` bytes.
        let n = unsafe { libc::write(fd.as_raw_fd(), data.as_ptr().cast(), data.len()) };
        assert_eq!(n, data.len() as isize);
    }

    #[test]
    fn reads_append_after_what_is_there() {
        let (a, b) = socketpair();
        let mut buf = BytesMut::with_capacity(16);
        buf.extend_from_slice(b"head:");
        send(&a, b"0123456789abcdefXYZ");
        // Room for 11 more: the read stops there.
        assert_eq!(read_into(&b, &mut buf, usize::MAX).unwrap(), 11);
        assert_eq!(&buf[..], b"head:0123456789a");
        buf.reserve(64);
        assert_eq!(read_into(&b, &mut buf, 4).unwrap(), 4);
        assert_eq!(&buf[..], b"head:0123456789abcde");
        assert_eq!(read_into(&b, &mut buf, usize::MAX).unwrap(), 4);
        assert_eq!(&buf[..], b"head:0123456789abcdefXYZ");
        drop(a);
        assert_eq!(read_into(&b, &mut buf, usize::MAX).unwrap(), 0);
        assert_eq!(buf.len(), 24);
    }

    #[test]
    fn errors_leave_the_buffer_alone() {
        let mut buf = BytesMut::with_capacity(8);
        buf.extend_from_slice(b"x");
        assert!(read_fd(-1, &mut buf, usize::MAX).is_err());
        assert_eq!(&buf[..], b"x");
    }

    #[test]
    fn no_room_reads_nothing() {
        let (a, b) = socketpair();
        send(&a, b"abc");
        let mut buf = BytesMut::new();
        assert_eq!(read_into(&b, &mut buf, usize::MAX).unwrap(), 0);
        assert!(buf.is_empty());
    }

    #[test]
    fn zeroed_reads_the_same() {
        let (a, b) = socketpair();
        send(&a, b"0123456789");
        let mut buf = BytesMut::with_capacity(32);
        // A `File` reads with read(2), which Miri's socketpair supports (recv(2) it does not).
        let mut s = std::fs::File::from(b);
        assert_eq!(read_zeroed(&mut s, &mut buf, 4).unwrap(), 4);
        assert_eq!(read_zeroed(&mut s, &mut buf, usize::MAX).unwrap(), 6);
        assert_eq!(&buf[..], b"0123456789");
    }
}
