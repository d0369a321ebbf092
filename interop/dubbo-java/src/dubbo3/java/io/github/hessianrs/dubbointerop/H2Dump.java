package io.github.hessianrs.dubbointerop;

import java.io.ByteArrayOutputStream;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.handler.codec.http2.DefaultHttp2HeadersDecoder;
import io.netty.handler.codec.http2.Http2Headers;

/**
 * {@code h2dump LISTENPORT HOST:PORT [--raw DIR]}: a TCP relay on 127.0.0.1:LISTENPORT (0 = a free
 * port; prints {@code RELAY <port>}) to HOST:PORT (loopback only) that prints every HTTP/2 frame
 * crossing it, in both directions: SETTINGS, PING, WINDOW_UPDATE, RST_STREAM, GOAWAY, HEADERS
 * (HPACK-decoded with Netty's decoder, one decoder per direction as on the real connection) and
 * DATA, whose gRPC length-prefixed messages are printed as hex and as a generic protobuf field
 * dump. A connection that does not start with the HTTP/2 preface is printed as text (HTTP/1.1).
 * {@code --raw DIR} also writes each connection's bytes to {@code DIR/conn<N>.c2p.bin} and
 * {@code .p2c.bin}. Runs until killed. Lines: {@code <ms> conn<N> c2p|p2c <frame> ...}.
 */
final class H2Dump {
    private static final byte[] PREFACE = "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n".getBytes(StandardCharsets.US_ASCII);
    private static final String[] TYPES = {"DATA", "HEADERS", "PRIORITY", "RST_STREAM", "SETTINGS",
        "PUSH_PROMISE", "PING", "GOAWAY", "WINDOW_UPDATE", "CONTINUATION"};
    private static final long T0 = System.currentTimeMillis();
    private static final PrintStream OUT = System.out;

    private H2Dump() {
    }

    static int run(String[] args) throws Exception {
        if (args.length < 3) throw new Main.UsageException("h2dump needs LISTENPORT HOST:PORT");
        int listen = Integer.parseInt(args[1]);
        String[] hp = Main.hostPort(args[2]);
        InetSocketAddress target = Loopback.pinned(hp[0], Integer.parseInt(hp[1]), "h2dump target");
        String raw = null;
        for (int i = 3; i < args.length; i++) {
            if (args[i].equals("--raw") && i + 1 < args.length) raw = args[++i];
            else throw new Main.UsageException("unknown option " + args[i]);
        }
        final String rawDir = raw;
        ServerSocket ss = new ServerSocket(listen, 16, InetAddress.getByAddress(new byte[] {127, 0, 0, 1}));
        line("RELAY " + ss.getLocalPort());
        AtomicInteger n = new AtomicInteger();
        while (true) {
            Socket c = ss.accept();
            Loopback.check(c.getRemoteSocketAddress(), "h2dump accept");
            int id = n.incrementAndGet();
            Socket p = new Socket();
            p.connect(target);
            c.setTcpNoDelay(true);
            p.setTcpNoDelay(true);
            line(stamp() + " conn" + id + " open " + c.getRemoteSocketAddress() + " -> " + target);
            OutputStream rc = rawDir == null ? null : new FileOutputStream(rawDir + "/conn" + id + ".c2p.bin");
            OutputStream rp = rawDir == null ? null : new FileOutputStream(rawDir + "/conn" + id + ".p2c.bin");
            pump(c, p, new Parser("conn" + id + " c2p", true), rc);
            pump(p, c, new Parser("conn" + id + " p2c", false), rp);
        }
    }

    static synchronized void line(String s) {
        OUT.println(s);
        OUT.flush();
    }

    static String stamp() {
        return String.format("%6d", System.currentTimeMillis() - T0);
    }

    private static void pump(Socket from, Socket to, Parser parser, OutputStream raw) {
        Thread t = new Thread(() -> {
            byte[] buf = new byte[65536];
            try (InputStream in = from.getInputStream(); OutputStream out = to.getOutputStream()) {
                int r;
                while ((r = in.read(buf)) >= 0) {
                    out.write(buf, 0, r);
                    out.flush();
                    if (raw != null) raw.write(buf, 0, r);
                    try {
                        parser.feed(buf, r);
                    } catch (RuntimeException e) {
                        line(stamp() + " " + parser.name + " PARSE-ERROR " + e);
                    }
                }
            } catch (IOException e) {
                // closed
            } finally {
                line(stamp() + " " + parser.name + " closed");
                try {
                    if (raw != null) raw.close();
                    to.shutdownOutput();
                } catch (IOException e) {
                    // ignore
                }
            }
        }, "h2dump-" + parser.name);
        t.setDaemon(true);
        t.start();
    }

    /** Splits one direction into HTTP/2 frames and prints them. */
    static final class Parser {
        final String name;
        final boolean client;
        private final ByteArrayOutputStream pending = new ByteArrayOutputStream();
        private int state; // 0: expecting preface (client) / frames, 1: frames, 2: http/1 text
        private final DefaultHttp2HeadersDecoder hpack = new DefaultHttp2HeadersDecoder(false);
        private final Map<Integer, ByteArrayOutputStream> data = new HashMap<>();
        private ByteArrayOutputStream headerBlock;
        private int headerStream;
        private String headerKind;

        Parser(String name, boolean client) {
            this.name = name;
            this.client = client;
            this.state = client ? 0 : 1;
        }

        void feed(byte[] b, int n) {
            if (state == 2) {
                line(stamp() + " " + name + " HTTP/1 " + n + " bytes:\n" + printable(b, 0, n));
                return;
            }
            pending.write(b, 0, n);
            byte[] p = pending.toByteArray();
            int off = 0;
            if (state == 0) {
                if (p.length < PREFACE.length) {
                    for (int i = 0; i < p.length; i++) {
                        if (p[i] != PREFACE[i]) {
                            state = 2;
                            pending.reset();
                            line(stamp() + " " + name + " HTTP/1 " + p.length + " bytes:\n" + printable(p, 0, p.length));
                            return;
                        }
                    }
                    return;
                }
                for (int i = 0; i < PREFACE.length; i++) {
                    if (p[i] != PREFACE[i]) {
                        state = 2;
                        pending.reset();
                        line(stamp() + " " + name + " HTTP/1 " + p.length + " bytes:\n" + printable(p, 0, p.length));
                        return;
                    }
                }
                line(stamp() + " " + name + " PREFACE");
                off = PREFACE.length;
                state = 1;
            }
            while (p.length - off >= 9) {
                int len = ((p[off] & 0xff) << 16) | ((p[off + 1] & 0xff) << 8) | (p[off + 2] & 0xff);
                if (p.length - off < 9 + len) break;
                int type = p[off + 3] & 0xff;
                int flags = p[off + 4] & 0xff;
                int stream = ((p[off + 5] & 0x7f) << 24) | ((p[off + 6] & 0xff) << 16) | ((p[off + 7] & 0xff) << 8)
                        | (p[off + 8] & 0xff);
                frame(type, flags, stream, p, off + 9, len);
                off += 9 + len;
            }
            pending.reset();
            pending.write(p, off, p.length - off);
        }

        private void frame(int type, int flags, int stream, byte[] p, int off, int len) {
            String t = type < TYPES.length ? TYPES[type] : "TYPE" + type;
            StringBuilder sb = new StringBuilder();
            sb.append(stamp()).append(' ').append(name).append(' ').append(t).append(" stream=").append(stream)
                    .append(" len=").append(len).append(" flags=0x").append(Integer.toHexString(flags));
            switch (type) {
                case 0: { // DATA
                    if ((flags & 0x1) != 0) sb.append(" END_STREAM");
                    int pad = 0;
                    if ((flags & 0x8) != 0) {
                        pad = p[off] & 0xff;
                        off++;
                        len--;
                    }
                    line(sb.toString());
                    ByteArrayOutputStream d = data.computeIfAbsent(stream, k -> new ByteArrayOutputStream());
                    d.write(p, off, len - pad);
                    grpcMessages(stream, d);
                    return;
                }
                case 1: { // HEADERS
                    if ((flags & 0x1) != 0) sb.append(" END_STREAM");
                    if ((flags & 0x4) != 0) sb.append(" END_HEADERS");
                    int pad = 0;
                    if ((flags & 0x8) != 0) {
                        pad = p[off] & 0xff;
                        off++;
                        len--;
                    }
                    if ((flags & 0x20) != 0) {
                        off += 5;
                        len -= 5;
                    }
                    line(sb.toString());
                    headerBlock = new ByteArrayOutputStream();
                    headerStream = stream;
                    headerKind = (flags & 0x1) != 0 ? "trailers/end" : "headers";
                    headerBlock.write(p, off, len - pad);
                    if ((flags & 0x4) != 0) decodeHeaders();
                    return;
                }
                case 9: // CONTINUATION
                    line(sb.toString());
                    if (headerBlock != null) {
                        headerBlock.write(p, off, len);
                        if ((flags & 0x4) != 0) decodeHeaders();
                    }
                    return;
                case 3:
                    sb.append(" error=").append(u32(p, off));
                    break;
                case 4:
                    if ((flags & 0x1) != 0) sb.append(" ACK");
                    for (int i = 0; i + 6 <= len; i += 6) {
                        int id = ((p[off + i] & 0xff) << 8) | (p[off + i + 1] & 0xff);
                        sb.append(' ').append(settingName(id)).append('=').append(u32(p, off + i + 2));
                    }
                    break;
                case 6:
                    if ((flags & 0x1) != 0) sb.append(" ACK");
                    sb.append(" data=").append(hex(p, off, len, 8));
                    break;
                case 7:
                    sb.append(" last-stream=").append(u32(p, off) & 0x7fffffffL).append(" error=").append(u32(p, off + 4));
                    if (len > 8) sb.append(" debug=\"").append(printable(p, off + 8, len - 8)).append('"');
                    break;
                case 8:
                    sb.append(" increment=").append(u32(p, off) & 0x7fffffffL);
                    break;
                default:
                    sb.append(" payload=").append(hex(p, off, len, 64));
            }
            line(sb.toString());
        }

        private void decodeHeaders() {
            byte[] block = headerBlock.toByteArray();
            headerBlock = null;
            ByteBuf buf = Unpooled.wrappedBuffer(block);
            StringBuilder sb = new StringBuilder();
            sb.append(stamp()).append(' ').append(name).append("   ").append(headerKind).append(" of stream ")
                    .append(headerStream).append(" (").append(block.length).append(" HPACK bytes):");
            try {
                Http2Headers h = hpack.decodeHeaders(headerStream, buf);
                h.forEach(e -> sb.append("\n      ").append(e.getKey()).append(": ").append(e.getValue()));
            } catch (Exception e) {
                sb.append(" HPACK-ERROR ").append(e);
            }
            line(sb.toString());
        }

        private void grpcMessages(int stream, ByteArrayOutputStream d) {
            byte[] all = d.toByteArray();
            int off = 0;
            while (all.length - off >= 5) {
                int flag = all[off] & 0xff;
                long len = u32(all, off + 1);
                if (all.length - off - 5 < len) break;
                int l = (int) len;
                StringBuilder sb = new StringBuilder();
                sb.append(stamp()).append(' ').append(name).append("   grpc message stream=").append(stream)
                        .append(" compressed=").append(flag).append(" length=").append(l)
                        .append("\n      hex: ").append(hex(all, off + 5, l, 400));
                if (flag == 0) {
                    sb.append("\n      protobuf:");
                    protobuf(sb, all, off + 5, l, "        ", 0);
                }
                line(sb.toString());
                off += 5 + l;
            }
            byte[] rest = java.util.Arrays.copyOfRange(all, off, all.length);
            d.reset();
            d.write(rest, 0, rest.length);
        }
    }

    /** A generic protobuf dump: field number, wire type, value; nested messages are tried for length-delimited fields. */
    static boolean protobuf(StringBuilder sb, byte[] b, int off, int len, String indent, int depth) {
        int end = off + len;
        StringBuilder local = new StringBuilder();
        int i = off;
        while (i < end) {
            long[] key = varint(b, i, end);
            if (key == null) return false;
            i = (int) key[1];
            int field = (int) (key[0] >>> 3);
            int wt = (int) (key[0] & 7);
            if (field == 0) return false;
            local.append('\n').append(indent).append("field ").append(field);
            switch (wt) {
                case 0: {
                    long[] v = varint(b, i, end);
                    if (v == null) return false;
                    i = (int) v[1];
                    local.append(" varint ").append(v[0]);
                    break;
                }
                case 1:
                    if (i + 8 > end) return false;
                    local.append(" fixed64 ").append(hex(b, i, 8, 8));
                    i += 8;
                    break;
                case 5:
                    if (i + 4 > end) return false;
                    local.append(" fixed32 ").append(hex(b, i, 4, 4));
                    i += 4;
                    break;
                case 2: {
                    long[] v = varint(b, i, end);
                    if (v == null) return false;
                    i = (int) v[1];
                    int l = (int) v[0];
                    if (l < 0 || i + l > end) return false;
                    local.append(" bytes[").append(l).append("]");
                    String s = new String(b, i, l, StandardCharsets.UTF_8);
                    boolean text = l > 0 && isText(b, i, l);
                    if (text) local.append(" \"").append(s.length() > 300 ? s.substring(0, 300) + "..." : s).append('"');
                    else local.append(' ').append(hex(b, i, l, 200));
                    if (!text && depth < 3 && l > 0) {
                        StringBuilder nested = new StringBuilder();
                        if (protobuf(nested, b, i, l, indent + "  ", depth + 1)) {
                            local.append("\n").append(indent).append("  (as a message:)").append(nested);
                        }
                    }
                    i += l;
                    break;
                }
                default:
                    return false;
            }
        }
        sb.append(local);
        return true;
    }

    static boolean isText(byte[] b, int off, int len) {
        for (int i = off; i < off + len; i++) {
            int c = b[i] & 0xff;
            if (c < 0x20 && c != '\n' && c != '\r' && c != '\t') return false;
            if (c == 0x7f) return false;
        }
        return new String(b, off, len, StandardCharsets.UTF_8).indexOf('\ufffd') < 0;
    }

    static long[] varint(byte[] b, int i, int end) {
        long v = 0;
        int shift = 0;
        while (i < end && shift < 64) {
            int c = b[i++] & 0xff;
            v |= (long) (c & 0x7f) << shift;
            if ((c & 0x80) == 0) return new long[] {v, i};
            shift += 7;
        }
        return null;
    }

    static long u32(byte[] p, int off) {
        return ((long) (p[off] & 0xff) << 24) | ((p[off + 1] & 0xff) << 16) | ((p[off + 2] & 0xff) << 8) | (p[off + 3] & 0xff);
    }

    static String hex(byte[] b, int off, int len, int max) {
        StringBuilder sb = new StringBuilder();
        for (int i = 0; i < Math.min(len, max); i++) sb.append(String.format("%02x", b[off + i] & 0xff));
        if (len > max) sb.append("...(").append(len).append(" bytes)");
        return sb.toString();
    }

    static String printable(byte[] b, int off, int len) {
        StringBuilder sb = new StringBuilder();
        for (int i = off; i < off + len; i++) {
            int c = b[i] & 0xff;
            if (c == '\n') sb.append("\\n\n");
            else if (c == '\r') sb.append("\\r");
            else if (c >= 0x20 && c < 0x7f) sb.append((char) c);
            else sb.append(String.format("\\x%02x", c));
        }
        return sb.toString();
    }

    static String settingName(int id) {
        switch (id) {
            case 1: return "HEADER_TABLE_SIZE";
            case 2: return "ENABLE_PUSH";
            case 3: return "MAX_CONCURRENT_STREAMS";
            case 4: return "INITIAL_WINDOW_SIZE";
            case 5: return "MAX_FRAME_SIZE";
            case 6: return "MAX_HEADER_LIST_SIZE";
            default: return "SETTING_" + id;
        }
    }
}
