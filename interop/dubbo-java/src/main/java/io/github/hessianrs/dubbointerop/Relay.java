package io.github.hessianrs.dubbointerop;

import java.io.ByteArrayOutputStream;
import java.io.Closeable;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * A TCP relay on 127.0.0.1 (ephemeral port) to a loopback target that splits both directions
 * into Dubbo frames (16-byte header: magic 0xdabb, flag, status, id, body length) and records them.
 */
final class Relay implements Closeable {
    /** One frame as it crossed the relay. */
    static final class Frame {
        final int seq;
        final boolean fromClient;
        final byte[] bytes;

        Frame(int seq, boolean fromClient, byte[] bytes) {
            this.seq = seq;
            this.fromClient = fromClient;
            this.bytes = bytes;
        }

        int flag() { return bytes[2] & 0xff; }
        int status() { return bytes[3] & 0xff; }
        boolean isRequest() { return (flag() & 0x80) != 0; }
        boolean isTwoWay() { return (flag() & 0x40) != 0; }
        boolean isEvent() { return (flag() & 0x20) != 0; }
        int serializationId() { return flag() & 0x1f; }

        long id() {
            long v = 0;
            for (int i = 4; i < 12; i++) v = (v << 8) | (bytes[i] & 0xff);
            return v;
        }

        int bodyLength() {
            return ((bytes[12] & 0xff) << 24) | ((bytes[13] & 0xff) << 16) | ((bytes[14] & 0xff) << 8) | (bytes[15] & 0xff);
        }

        byte[] body() { return Arrays.copyOfRange(bytes, 16, bytes.length); }

        String describe() {
            return (fromClient ? "client->provider" : "provider->client") + String.format(
                    " flag=0x%02x status=%d id=%d body=%d", flag(), status(), id(), bodyLength());
        }
    }

    private final ServerSocket server;
    private final InetSocketAddress target;
    private final List<Frame> frames = new ArrayList<>();
    private final List<Socket> sockets = new ArrayList<>();
    private volatile boolean closed;
    private volatile String error;

    Relay(InetSocketAddress target) throws IOException {
        this.target = target;
        this.server = new ServerSocket(0, 16, InetAddress.getByAddress(new byte[] {127, 0, 0, 1}));
        Thread t = new Thread(this::acceptLoop, "relay-accept");
        t.setDaemon(true);
        t.start();
    }

    int port() {
        return server.getLocalPort();
    }

    String error() {
        return error;
    }

    private void acceptLoop() {
        while (!closed) {
            try {
                Socket client = server.accept();
                Loopback.check(client.getRemoteSocketAddress(), "relay accept");
                Socket upstream = new Socket();
                upstream.connect(Loopback.pinned(target.getAddress().getHostAddress(), target.getPort(), "relay connect"));
                upstream.setTcpNoDelay(true);
                client.setTcpNoDelay(true);
                synchronized (sockets) {
                    sockets.add(client);
                    sockets.add(upstream);
                }
                pump(client, upstream, true);
                pump(upstream, client, false);
            } catch (IOException e) {
                if (!closed) error = "relay: " + e;
            }
        }
    }

    private void pump(Socket from, Socket to, boolean fromClient) {
        Thread t = new Thread(() -> {
            ByteArrayOutputStream pending = new ByteArrayOutputStream();
            byte[] buf = new byte[65536];
            try (InputStream in = from.getInputStream()) {
                OutputStream out = to.getOutputStream();
                int n;
                while ((n = in.read(buf)) >= 0) {
                    // record first, so a request is always listed before its response
                    pending.write(buf, 0, n);
                    split(pending, fromClient);
                    out.write(buf, 0, n);
                    out.flush();
                }
            } catch (IOException e) {
                // connection closed
            } finally {
                try {
                    to.shutdownOutput();
                } catch (IOException e) {
                    // ignore
                }
            }
        }, fromClient ? "relay-c2p" : "relay-p2c");
        t.setDaemon(true);
        t.start();
    }

    private void split(ByteArrayOutputStream pending, boolean fromClient) {
        byte[] data = pending.toByteArray();
        int off = 0;
        while (data.length - off >= 16) {
            if ((data[off] & 0xff) != 0xda || (data[off + 1] & 0xff) != 0xbb) {
                error = "relay: bad magic " + String.format("%02x%02x", data[off], data[off + 1])
                        + (fromClient ? " from client" : " from provider");
                off = data.length; // give up on this stream's framing
                break;
            }
            int len = ((data[off + 12] & 0xff) << 24) | ((data[off + 13] & 0xff) << 16)
                    | ((data[off + 14] & 0xff) << 8) | (data[off + 15] & 0xff);
            if (data.length - off < 16 + len) break;
            byte[] frame = Arrays.copyOfRange(data, off, off + 16 + len);
            synchronized (frames) {
                frames.add(new Frame(frames.size(), fromClient, frame));
                frames.notifyAll();
            }
            off += 16 + len;
        }
        pending.reset();
        pending.write(data, off, data.length - off);
    }

    /** Frames recorded so far (a copy). */
    List<Frame> frames() {
        synchronized (frames) {
            return new ArrayList<>(frames);
        }
    }

    /** Waits up to {@code ms} for a frame matching the predicate among frames with seq >= from. */
    Frame await(int from, java.util.function.Predicate<Frame> p, long ms) throws InterruptedException {
        long deadline = System.currentTimeMillis() + ms;
        synchronized (frames) {
            while (true) {
                for (int i = from; i < frames.size(); i++) {
                    if (p.test(frames.get(i))) return frames.get(i);
                }
                long left = deadline - System.currentTimeMillis();
                if (left <= 0) return null;
                frames.wait(left);
            }
        }
    }

    int size() {
        synchronized (frames) {
            return frames.size();
        }
    }

    @Override
    public void close() throws IOException {
        closed = true;
        server.close();
        synchronized (sockets) {
            for (Socket s : sockets) {
                try {
                    s.close();
                } catch (IOException e) {
                    // ignore
                }
            }
        }
    }
}
