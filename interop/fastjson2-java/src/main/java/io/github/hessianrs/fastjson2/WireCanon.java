package io.github.hessianrs.fastjson2;

import com.alibaba.fastjson2.JSONArray;
import com.alibaba.fastjson2.JSONException;
import com.alibaba.fastjson2.JSONObject;
import com.alibaba.fastjson2.JSONReader;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.time.ZonedDateTime;
import java.util.Date;

/**
 * The "wire canon" of one JSONB document: what every byte code means, read with fastjson2's own
 * JSONReader (scalars through readAny, which returns the Java type of the code; containers,
 * type names, symbols and references walked by hand). It keeps the wire's distinctions (int32 vs
 * int64 forms, symbols vs strings, type names, reference paths), so a Rust Value can be compared
 * with it one to one. The format is described in fastjson2/tests/java_vectors.rs.
 */
final class WireCanon {
    private static final byte BC_CHAR = (byte) 0x90;
    private static final byte BC_TYPED_ANY = (byte) 0x92;
    private static final byte BC_REFERENCE = (byte) 0x93;
    private static final byte BC_ARRAY_FIX_0 = (byte) 0x94;
    private static final byte BC_ARRAY = (byte) 0xa4;
    private static final byte BC_OBJECT_END = (byte) 0xa5;
    private static final byte BC_OBJECT = (byte) 0xa6;
    private static final byte BC_INT8 = (byte) 0xbd;
    private static final byte BC_INT16 = (byte) 0xbc;
    private static final byte BC_SYMBOL = (byte) 0x7f;
    private static final byte BC_STR_ASCII_FIX_0 = (byte) 0x49;

    private WireCanon() {
    }

    static Object of(byte[] bytes) {
        try (JSONReader r = JSONReader.ofJSONB(bytes)) {
            Object v = walk(r);
            if (!r.isEnd()) {
                throw new JSONException("trailing bytes after the value");
            }
            return v;
        }
    }

    private static Object walk(JSONReader r) {
        byte t = r.getType();
        if (t == BC_TYPED_ANY) {
            r.next();
            r.readTypeHashCode();
            String name = r.getString();
            JSONObject o = new JSONObject();
            o.put("type", name);
            o.put("value", walk(r));
            return o;
        }
        if (t == BC_REFERENCE) {
            return one("ref", r.readReference());
        }
        if (t == BC_OBJECT) {
            r.next();
            JSONArray entries = new JSONArray();
            while (r.getType() != BC_OBJECT_END) {
                Object key;
                byte k = r.getType();
                if (k == BC_SYMBOL) {
                    key = one("sym", r.readFieldName());
                } else if (k >= BC_STR_ASCII_FIX_0) {
                    key = r.readFieldName();
                } else {
                    key = walk(r);
                }
                JSONArray e = new JSONArray();
                e.add(key);
                e.add(walk(r));
                entries.add(e);
            }
            r.next();
            return one("obj", entries);
        }
        if ((t >= BC_ARRAY_FIX_0 && t <= BC_ARRAY)) {
            int n = r.startArray();
            JSONArray a = new JSONArray();
            for (int i = 0; i < n; i++) {
                a.add(walk(r));
            }
            return a;
        }
        if (t == BC_SYMBOL) {
            return one("sym", r.readString());
        }
        if (t == BC_INT8) {
            return one("b", ((Number) r.readAny()).longValue());
        }
        if (t == BC_INT16) {
            return one("s", ((Number) r.readAny()).longValue());
        }
        if (t == BC_CHAR) {
            return one("c", (long) (Character) r.readAny());
        }
        return scalar(r.readAny());
    }

    private static Object scalar(Object v) {
        if (v == null || v instanceof Boolean || v instanceof String) {
            return v;
        }
        if (v instanceof Integer) {
            return one("i", ((Integer) v).longValue());
        }
        if (v instanceof Long) {
            return one("l", v);
        }
        if (v instanceof Float) {
            return one("f", (long) Float.floatToRawIntBits((Float) v));
        }
        if (v instanceof Double) {
            return one("d", Double.doubleToRawLongBits((Double) v));
        }
        if (v instanceof byte[]) {
            return one("bin", Main.hex((byte[]) v, Integer.MAX_VALUE));
        }
        if (v instanceof BigInteger) {
            return one("bigint", Main.hex(((BigInteger) v).toByteArray(), Integer.MAX_VALUE));
        }
        if (v instanceof BigDecimal) {
            BigDecimal d = (BigDecimal) v;
            JSONObject o = one("dec", Main.hex(d.unscaledValue().toByteArray(), Integer.MAX_VALUE));
            o.put("scale", d.scale());
            return o;
        }
        if (v instanceof Date) {
            return one("date", ((Date) v).getTime());
        }
        if (v instanceof Instant) {
            Instant i = (Instant) v;
            return one("instant", JSONArray.of(i.getEpochSecond(), i.getNano()));
        }
        if (v instanceof LocalDate) {
            LocalDate d = (LocalDate) v;
            return one("ld", JSONArray.of(d.getYear(), d.getMonthValue(), d.getDayOfMonth()));
        }
        if (v instanceof LocalTime) {
            LocalTime d = (LocalTime) v;
            return one("lt", JSONArray.of(d.getHour(), d.getMinute(), d.getSecond(), d.getNano()));
        }
        if (v instanceof LocalDateTime) {
            LocalDateTime d = (LocalDateTime) v;
            return one("ldt", JSONArray.of(d.getYear(), d.getMonthValue(), d.getDayOfMonth(), d.getHour(),
                    d.getMinute(), d.getSecond(), d.getNano()));
        }
        if (v instanceof ZonedDateTime) {
            ZonedDateTime d = (ZonedDateTime) v;
            return one("zdt", JSONArray.of(d.getYear(), d.getMonthValue(), d.getDayOfMonth(), d.getHour(),
                    d.getMinute(), d.getSecond(), d.getNano(), d.getZone().getId()));
        }
        throw new JSONException("no wire canon for " + v.getClass().getName());
    }

    private static JSONObject one(String k, Object v) {
        JSONObject o = new JSONObject();
        o.put(k, v);
        return o;
    }
}
