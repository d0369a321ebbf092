package io.github.hessianrs.interop;

import java.util.ArrayList;
import java.util.List;

/**
 * An independent Hessian 2.0 byte-level parser that produces the canonical JSON straight from the
 * bytes (no hessian-lite involved). Used to check that the canonical description computed from
 * Java objects really matches what is on the wire (type names, field order, reference numbering,
 * class-definition and type-name reuse across top-level values).
 */
final class WireParser {
    private final byte[] buf;
    private int pos;
    private int nextRef;
    private final List<String> types = new ArrayList<>();
    private final List<String[]> classDefs = new ArrayList<>();
    /** Statistics, for the structural self-check. */
    int classDefCount;
    int typeRefUses;
    int classRefUses;
    int refUses;

    WireParser(byte[] buf) {
        this.buf = buf;
    }

    static List<String> parseAll(byte[] buf) {
        WireParser p = new WireParser(buf);
        List<String> out = new ArrayList<>();
        while (p.pos < buf.length) {
            StringBuilder sb = new StringBuilder();
            p.value(sb);
            out.add(sb.toString());
        }
        return out;
    }

    int refCount() {
        return nextRef;
    }

    boolean atEnd() {
        return pos >= buf.length;
    }

    private int read() {
        if (pos >= buf.length) {
            throw new IllegalStateException("unexpected end of data at offset " + pos);
        }
        return buf[pos++] & 0xff;
    }

    private int peek() {
        if (pos >= buf.length) {
            throw new IllegalStateException("unexpected end of data at offset " + pos);
        }
        return buf[pos] & 0xff;
    }

    private int u16() {
        return (read() << 8) | read();
    }

    private int i32() {
        return (read() << 24) | (read() << 16) | (read() << 8) | read();
    }

    private long i64() {
        long hi = i32() & 0xffffffffL;
        long lo = i32() & 0xffffffffL;
        return (hi << 32) | lo;
    }

    private IllegalStateException bad(int tag, String what) {
        return new IllegalStateException(String.format("unexpected tag 0x%02x at offset %d (%s)", tag, pos - 1, what));
    }

    /** Reads an int-encoded value (used for lengths, type refs, class refs, refs). */
    int readInt() {
        int tag = read();
        if (tag >= 0x80 && tag <= 0xbf) {
            return tag - 0x90;
        } else if (tag >= 0xc0 && tag <= 0xcf) {
            return ((tag - 0xc8) << 8) | read();
        } else if (tag >= 0xd0 && tag <= 0xd7) {
            return ((tag - 0xd4) << 16) | (read() << 8) | read();
        } else if (tag == 'I') {
            return i32();
        }
        throw bad(tag, "int");
    }

    /** Reads a string value (tag already consumed). */
    private String readString(int tag) {
        StringBuilder s = new StringBuilder();
        while (true) {
            int len;
            boolean last = true;
            if (tag <= 0x1f) {
                len = tag;
            } else if (tag >= 0x30 && tag <= 0x33) {
                len = ((tag - 0x30) << 8) | read();
            } else if (tag == 'S') {
                len = u16();
            } else if (tag == 'R') {
                len = u16();
                last = false;
            } else {
                throw bad(tag, "string");
            }
            for (int i = 0; i < len; i++) {
                int c = read();
                if (c < 0x80) {
                    s.append((char) c);
                } else if ((c & 0xe0) == 0xc0) {
                    s.append((char) (((c & 0x1f) << 6) | (read() & 0x3f)));
                } else if ((c & 0xf0) == 0xe0) {
                    int c2 = read();
                    int c3 = read();
                    s.append((char) (((c & 0x0f) << 12) | ((c2 & 0x3f) << 6) | (c3 & 0x3f)));
                } else {
                    throw new IllegalStateException(String.format("bad utf-8 lead byte 0x%02x at %d", c, pos - 1));
                }
            }
            if (last) {
                return s.toString();
            }
            tag = read();
        }
    }

    private static boolean isStringTag(int tag) {
        return tag <= 0x1f || (tag >= 0x30 && tag <= 0x33) || tag == 'S' || tag == 'R';
    }

    private String readType() {
        int tag = peek();
        if (isStringTag(tag)) {
            read();
            String t = readString(tag);
            types.add(t);
            return t;
        }
        int ref = readInt();
        typeRefUses++;
        if (ref < 0 || ref >= types.size()) {
            throw new IllegalStateException("bad type ref " + ref);
        }
        return types.get(ref);
    }

    void value(StringBuilder sb) {
        int tag = read();
        while (tag == 'C') {
            int t = read();
            String name = readString(t);
            int n = readInt();
            String[] def = new String[n + 1];
            def[0] = name;
            for (int i = 0; i < n; i++) {
                def[i + 1] = readString(read());
            }
            classDefs.add(def);
            classDefCount++;
            tag = read();
        }
        if (tag == 'N') {
            Json.nul(sb);
        } else if (tag == 'T') {
            Json.bool(sb, true);
        } else if (tag == 'F') {
            Json.bool(sb, false);
        } else if (tag >= 0x80 && tag <= 0xd7 || tag == 'I') {
            pos--;
            Json.intv(sb, readInt());
        } else if (tag >= 0xd8 && tag <= 0xef) {
            Json.longv(sb, tag - 0xe0);
        } else if (tag >= 0xf0) {
            Json.longv(sb, ((tag - 0xf8) << 8) | read());
        } else if (tag >= 0x38 && tag <= 0x3f) {
            Json.longv(sb, ((tag - 0x3c) << 16) | (read() << 8) | read());
        } else if (tag == 0x59) {
            Json.longv(sb, i32());
        } else if (tag == 'L') {
            Json.longv(sb, i64());
        } else if (tag == 0x5b) {
            Json.doublev(sb, 0.0);
        } else if (tag == 0x5c) {
            Json.doublev(sb, 1.0);
        } else if (tag == 0x5d) {
            Json.doublev(sb, (byte) read());
        } else if (tag == 0x5e) {
            Json.doublev(sb, (short) u16());
        } else if (tag == 0x5f) {
            Json.doublev(sb, 0.001 * i32());
        } else if (tag == 'D') {
            Json.doublev(sb, Double.longBitsToDouble(i64()));
        } else if (tag == 0x4a) {
            Json.date(sb, i64());
        } else if (tag == 0x4b) {
            Json.date(sb, 60000L * i32());
        } else if (isStringTag(tag)) {
            Json.string(sb, readString(tag));
        } else if ((tag >= 0x20 && tag <= 0x2f) || (tag >= 0x34 && tag <= 0x37) || tag == 'B' || tag == 'A') {
            java.io.ByteArrayOutputStream bos = new java.io.ByteArrayOutputStream();
            while (true) {
                int len;
                boolean last = true;
                if (tag >= 0x20 && tag <= 0x2f) {
                    len = tag - 0x20;
                } else if (tag >= 0x34 && tag <= 0x37) {
                    len = ((tag - 0x34) << 8) | read();
                } else if (tag == 'B') {
                    len = u16();
                } else if (tag == 'A') {
                    len = u16();
                    last = false;
                } else {
                    throw bad(tag, "binary chunk");
                }
                if (pos + len > buf.length) {
                    throw new IllegalStateException("binary overruns data");
                }
                bos.write(buf, pos, len);
                pos += len;
                if (last) {
                    break;
                }
                tag = read();
            }
            byte[] b = bos.toByteArray();
            Json.binary(sb, b, 0, b.length);
        } else if (tag == 0x55 || tag == 'V' || tag == 0x57 || tag == 0x58 || (tag >= 0x70 && tag <= 0x7f)) {
            list(sb, tag);
        } else if (tag == 'M' || tag == 'H') {
            nextRef++;
            String type = tag == 'M' ? readType() : null;
            Json.mapStart(sb);
            int i = 0;
            while (peek() != 'Z') {
                if (i++ > 0) {
                    sb.append(',');
                }
                sb.append('[');
                value(sb);
                sb.append(',');
                value(sb);
                sb.append(']');
            }
            read();
            Json.typeTail(sb, type);
        } else if (tag == 'O' || (tag >= 0x60 && tag <= 0x6f)) {
            int def = tag == 'O' ? readInt() : tag - 0x60;
            if (def < 0 || def >= classDefs.size()) {
                throw new IllegalStateException("bad class ref " + def);
            }
            classRefUses++;
            String[] d = classDefs.get(def);
            nextRef++;
            Json.objectStart(sb, d[0]);
            for (int i = 1; i < d.length; i++) {
                if (i > 1) {
                    sb.append(',');
                }
                sb.append('[');
                Json.str(sb, d[i]);
                sb.append(',');
                value(sb);
                sb.append(']');
            }
            Json.objectEnd(sb);
        } else if (tag == 'Q') {
            int r = readInt();
            if (r < 0 || r >= nextRef) {
                throw new IllegalStateException("ref " + r + " to an object not yet started (" + nextRef + " so far)");
            }
            refUses++;
            Json.ref(sb, r);
        } else {
            throw bad(tag, "value");
        }
    }

    private void list(StringBuilder sb, int tag) {
        nextRef++;
        String type = null;
        int len = -1;
        if (tag == 0x55) {
            type = readType();
        } else if (tag == 'V') {
            type = readType();
            len = readInt();
        } else if (tag == 0x57) {
            // variable, untyped
        } else if (tag == 0x58) {
            len = readInt();
        } else if (tag >= 0x70 && tag <= 0x77) {
            type = readType();
            len = tag - 0x70;
        } else {
            len = tag - 0x78;
        }
        Json.listStart(sb);
        if (len >= 0) {
            for (int i = 0; i < len; i++) {
                if (i > 0) {
                    sb.append(',');
                }
                value(sb);
            }
        } else {
            int i = 0;
            while (peek() != 'Z') {
                if (i++ > 0) {
                    sb.append(',');
                }
                value(sb);
            }
            read();
        }
        Json.typeTail(sb, type);
    }
}
