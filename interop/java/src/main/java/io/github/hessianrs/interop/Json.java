package io.github.hessianrs.interop;

/**
 * Minimal JSON text helpers for the canonical wire model. Output is compact (no spaces) so that
 * two canonical descriptions of equal values are equal strings.
 */
final class Json {
    private Json() {
    }

    private static final char[] HEX = "0123456789abcdef".toCharArray();

    /** Appends a JSON string literal. Non-ASCII is emitted as UTF-8 text; lone surrogates and controls as backslash-u escapes. */
    static void str(StringBuilder sb, String s) {
        sb.append('"');
        int n = s.length();
        for (int i = 0; i < n; i++) {
            char c = s.charAt(i);
            switch (c) {
                case '"':
                    sb.append("\\\"");
                    break;
                case '\\':
                    sb.append("\\\\");
                    break;
                case '\n':
                    sb.append("\\n");
                    break;
                case '\r':
                    sb.append("\\r");
                    break;
                case '\t':
                    sb.append("\\t");
                    break;
                default:
                    if (c < 0x20 || c == 0x7f) {
                        unicodeEscape(sb, c);
                    } else if (Character.isHighSurrogate(c)) {
                        if (i + 1 < n && Character.isLowSurrogate(s.charAt(i + 1))) {
                            sb.append(c).append(s.charAt(i + 1));
                            i++;
                        } else {
                            unicodeEscape(sb, c);
                        }
                    } else if (Character.isLowSurrogate(c)) {
                        unicodeEscape(sb, c);
                    } else {
                        sb.append(c);
                    }
            }
        }
        sb.append('"');
    }

    static String str(String s) {
        StringBuilder sb = new StringBuilder(s.length() + 2);
        str(sb, s);
        return sb.toString();
    }

    private static void unicodeEscape(StringBuilder sb, char c) {
        sb.append("\\u").append(HEX[(c >> 12) & 15]).append(HEX[(c >> 8) & 15])
                .append(HEX[(c >> 4) & 15]).append(HEX[c & 15]);
    }

    static String hex(byte[] b) {
        return hex(b, 0, b.length);
    }

    static String hex(byte[] b, int off, int len) {
        char[] out = new char[len * 2];
        for (int i = 0; i < len; i++) {
            int v = b[off + i] & 0xff;
            out[2 * i] = HEX[v >> 4];
            out[2 * i + 1] = HEX[v & 15];
        }
        return new String(out);
    }

    static String doubleHex(double d) {
        String h = Long.toHexString(Double.doubleToRawLongBits(d));
        StringBuilder sb = new StringBuilder(16);
        for (int i = h.length(); i < 16; i++) {
            sb.append('0');
        }
        return sb.append(h).toString();
    }

    // ---- canonical scalar forms, shared by Canon and WireParser ----

    static void nul(StringBuilder sb) {
        sb.append("null");
    }

    static void bool(StringBuilder sb, boolean v) {
        sb.append(v ? "true" : "false");
    }

    static void intv(StringBuilder sb, int v) {
        sb.append("{\"int\":").append(v).append('}');
    }

    static void longv(StringBuilder sb, long v) {
        sb.append("{\"long\":").append(v).append('}');
    }

    static void doublev(StringBuilder sb, double v) {
        sb.append("{\"double\":\"").append(doubleHex(v)).append("\"}");
    }

    static void date(StringBuilder sb, long ms) {
        sb.append("{\"date\":").append(ms).append('}');
    }

    static void string(StringBuilder sb, String s) {
        sb.append("{\"string\":");
        str(sb, s);
        sb.append('}');
    }

    static void binary(StringBuilder sb, byte[] b, int off, int len) {
        sb.append("{\"binary\":\"").append(hex(b, off, len)).append("\"}");
    }

    static void ref(StringBuilder sb, int n) {
        sb.append("{\"ref\":").append(n).append('}');
    }

    /** Type trailer shared by lists and maps: ',"type":...}' */
    static void typeTail(StringBuilder sb, String type) {
        sb.append("],\"type\":");
        if (type == null) {
            sb.append("null");
        } else {
            str(sb, type);
        }
        sb.append('}');
    }

    static void listStart(StringBuilder sb) {
        sb.append("{\"list\":[");
    }

    static void mapStart(StringBuilder sb) {
        sb.append("{\"map\":[");
    }

    static void objectStart(StringBuilder sb, String cls) {
        sb.append("{\"object\":");
        str(sb, cls);
        sb.append(",\"fields\":[");
    }

    static void objectEnd(StringBuilder sb) {
        sb.append("]}");
    }
}
