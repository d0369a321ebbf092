package io.github.hessianrs.fastjson2;

import io.github.hessianrs.interop.model.AllPrimitives;
import io.github.hessianrs.interop.model.Color;
import io.github.hessianrs.interop.model.Derived;
import io.github.hessianrs.interop.model.Mix;
import io.github.hessianrs.interop.model.Node;
import io.github.hessianrs.interop.model.Order;
import io.github.hessianrs.interop.model.Address;
import io.github.hessianrs.interop.model.User;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.time.OffsetDateTime;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Date;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.UUID;

/** Every vector: a name and the Java value written as one Dubbo object (one JSONB document). */
final class Cases {
    private Cases() {
    }

    static Map<String, Object> all() {
        Map<String, Object> c = new LinkedHashMap<>();
        c.put("null", null);
        c.put("true", true);
        c.put("false", false);
        for (int v : new int[] {0, 1, -1, -16, 47, 48, -17, 2047, -2048, 2048, -2049, 262143, -262144, 262144,
                -262145, Integer.MAX_VALUE, Integer.MIN_VALUE}) {
            c.put("int_" + name(v), v);
        }
        for (long v : new long[] {0, -8, 15, 16, -9, 2047, -2048, 2048, 262143, -262144, 262144,
                Integer.MAX_VALUE, Integer.MIN_VALUE, 1L + Integer.MAX_VALUE, 1L << 40, Long.MAX_VALUE, Long.MIN_VALUE}) {
            c.put("long_" + name(v), v);
        }
        c.put("byte_5", (byte) 5);
        c.put("byte_m128", (byte) -128);
        c.put("short_300", (short) 300);
        c.put("short_m32768", (short) -32768);
        for (float v : new float[] {0f, -0f, 1f, 3f, -16f, 47f, 48f, -17f, 1.5f, -2.25f, 1e30f, Float.NaN,
                Float.POSITIVE_INFINITY}) {
            c.put("float_" + name(v), v);
        }
        for (double v : new double[] {0d, -0d, 1d, 2d, -1d, 1.5d, 0.1d, 1e300d, 2147483647d, 2147483648d,
                -2147483648d, -2147483649d, 4.5e15d, Double.NaN, Double.NEGATIVE_INFINITY}) {
            c.put("double_" + name(v), v);
        }
        c.put("char_a", 'a');
        c.put("char_cjk", '\u4e2d');
        c.put("string_empty", "");
        c.put("string_a", "a");
        c.put("string_ascii_47", repeat("abcdefghij", 5).substring(0, 47));
        c.put("string_ascii_48", repeat("abcdefghij", 5).substring(0, 48));
        c.put("string_ascii_2047", repeat("0123456789", 205).substring(0, 2047));
        c.put("string_ascii_2048", repeat("0123456789", 205).substring(0, 2048));
        c.put("string_ascii_300000", repeat("0123456789", 30000));
        c.put("string_latin1", "caf\u00e9 \u00fc\u00df\u00ff");
        c.put("string_latin1_long", repeat("na\u00efve ", 20));
        c.put("string_cjk", "\u4e2d\u6587");
        c.put("string_cjk_long", repeat("\u4e2d\u6587\u5b57\u7b26", 40));
        c.put("string_mixed_mostly_ascii", repeat("hello ", 20) + "\u4e16\u754c");
        c.put("string_mixed_third", repeat("ab\u4e2d", 30));
        c.put("string_cjk_low_zero", "\u4e00\u4e00\u4e00x");
        c.put("string_emoji", "smile \ud83d\ude00!");
        c.put("string_greek", "\u03b1\u03b2\u03b3 alpha");
        c.put("binary_empty", new byte[0]);
        c.put("binary_3", new byte[] {1, 2, (byte) 0xff});
        byte[] b100 = new byte[100];
        for (int i = 0; i < b100.length; i++) {
            b100[i] = (byte) (i * 7);
        }
        c.put("binary_100", b100);
        c.put("bigint_small", BigInteger.valueOf(12345));
        c.put("bigint_neg", BigInteger.valueOf(-1L << 50));
        c.put("bigint_2_100", BigInteger.ONE.shiftLeft(100));
        c.put("bigint_neg_2_100", BigInteger.ONE.shiftLeft(100).negate());
        c.put("decimal_1_23", new BigDecimal("1.23"));
        c.put("decimal_100", new BigDecimal("100"));
        c.put("decimal_m0_5", new BigDecimal("-0.5"));
        c.put("decimal_1e5", new BigDecimal("1E+5"));
        c.put("decimal_long_scale", new BigDecimal("12345678901.234567"));
        c.put("decimal_20_digits", new BigDecimal("12345678901234567890"));
        c.put("decimal_19_digits_scale", new BigDecimal("1234567890123456789.5"));
        c.put("decimal_huge", new BigDecimal("123456789012345678901234567890.123456789"));
        c.put("date_millis", new Date(1700000000123L));
        c.put("date_seconds", new Date(1700000000000L));
        c.put("date_negative", new Date(-86400000L * 365));
        c.put("date_far_minutes", new Date(60_000L * 40_000_000_000L));
        c.put("local_date", LocalDate.of(2024, 2, 29));
        c.put("local_time", LocalTime.of(13, 45, 30, 123_456_789));
        c.put("local_time_whole", LocalTime.of(8, 0));
        c.put("local_datetime", LocalDateTime.of(2024, 12, 31, 23, 59, 58, 1_000_000));
        c.put("instant", Instant.ofEpochSecond(1700000000L, 500));
        c.put("zoned_shanghai", ZonedDateTime.of(2024, 5, 6, 7, 8, 9, 0, ZoneId.of("Asia/Shanghai")));
        c.put("zoned_utc", ZonedDateTime.of(2024, 5, 6, 7, 8, 9, 10, ZoneId.of("UTC")));
        c.put("offset_datetime", OffsetDateTime.of(2024, 5, 6, 7, 8, 9, 0, ZoneOffset.ofHours(-5)));
        c.put("uuid", new UUID(0x0123456789abcdefL, 0xfedcba9876543210L));
        c.put("offset_time", java.time.OffsetTime.of(13, 45, 30, 123_456_789, ZoneOffset.ofHours(-5)));
        c.put("duration", java.time.Duration.ofSeconds(3661, 5));
        c.put("period", java.time.Period.of(1, -2, 3));
        c.put("year", java.time.Year.of(2024));
        c.put("year_month", java.time.YearMonth.of(2024, 2));
        c.put("month_day", java.time.MonthDay.of(2, 29));
        c.put("zone_id", ZoneId.of("Europe/Paris"));
        c.put("zone_offset", ZoneOffset.ofHoursMinutes(5, 30));
        c.put("locale", java.util.Locale.SIMPLIFIED_CHINESE);
        c.put("currency", java.util.Currency.getInstance("EUR"));
        c.put("sql_date", new java.sql.Date(1577836800000L));
        c.put("sql_time", new java.sql.Time(45296789L));
        c.put("sql_timestamp", new java.sql.Timestamp(1700000000123L));
        c.put("enum", Color.GREEN);
        c.put("list_empty", new ArrayList<>());
        c.put("list_mixed", new ArrayList<>(Arrays.asList(1, "a", null, 2L, true)));
        List<Object> l20 = new ArrayList<>();
        for (int i = 0; i < 20; i++) {
            l20.add(i);
        }
        c.put("list_20", l20);
        c.put("linked_list", new LinkedList<>(Arrays.asList("x", "y")));
        c.put("int_array", new int[] {1, 2, 300});
        c.put("long_array", new long[] {1, 2, 1L << 40});
        c.put("double_array", new double[] {1.0, 2.5});
        c.put("string_array", new String[] {"a", null, "b"});
        c.put("object_array", new Object[] {1, "two"});
        Map<String, Object> hm = new HashMap<>();
        hm.put("a", 1);
        hm.put("b", "x");
        c.put("hash_map", hm);
        c.put("map_empty", new HashMap<>());
        Map<String, Object> lhm = new LinkedHashMap<>();
        lhm.put("z", 1);
        lhm.put("y", Arrays.asList(1, 2));
        c.put("linked_hash_map", lhm);
        Map<String, Object> tm = new TreeMap<>();
        tm.put("b", 2L);
        tm.put("a", 1L);
        c.put("tree_map", tm);
        Map<Integer, String> im = new HashMap<>();
        im.put(1, "one");
        im.put(2, "two");
        c.put("map_int_keys", im);
        c.put("user", user(1, "Alice"));
        User un = new User();
        un.id = 2;
        c.put("user_nulls", un);
        c.put("users_list", new ArrayList<>(Arrays.asList(user(1, "Alice"), user(2, "Bob"))));
        User shared = user(3, "Carol");
        c.put("list_same_user_twice", new ArrayList<>(Arrays.asList(shared, shared)));
        c.put("mix", mix(false));
        c.put("mix_self_ref", mix(true));
        Node a = new Node(1);
        Node b = new Node(2);
        a.next = b;
        b.next = a;
        c.put("node_cycle", a);
        Node self = new Node(7);
        self.next = self;
        c.put("node_self", self);
        c.put("derived", derived());
        c.put("all_primitives", allPrimitives());
        c.put("all_primitives_default", new AllPrimitives());
        c.put("order", order());
        RuntimeException ex = new IllegalStateException("boom");
        ex.setStackTrace(new StackTraceElement[0]);
        c.put("exception", ex);
        // What a Dubbo provider answers for a failed call: the exception with its cause and a
        // stack trace (fixed frames, so the bytes do not depend on this build).
        IllegalArgumentException cause = new IllegalArgumentException("bad id");
        cause.setStackTrace(new StackTraceElement[] {
            new StackTraceElement("com.example.UserService", "find", "UserService.java", 42)});
        RuntimeException wrapped = new RuntimeException("lookup failed", cause);
        wrapped.setStackTrace(new StackTraceElement[] {
            new StackTraceElement("com.example.Facade", "call", "Facade.java", 7),
            new StackTraceElement("com.example.Main", "main", null, -2)});
        c.put("exception_with_cause", wrapped);
        c.put("hash_set", new java.util.HashSet<>(Arrays.asList("a", "b")));
        c.put("enum_list", new ArrayList<>(Arrays.asList(Color.RED, Color.BLUE, Color.RED)));
        Map<String, Object> users = new LinkedHashMap<>();
        users.put("alice", user(1, "Alice"));
        users.put("bob", user(2, "Bob"));
        c.put("map_of_users", users);
        c.put("user_array", new User[] {user(1, "Alice"), null});
        Map<Object, Object> mixedKeys = new HashMap<>();
        mixedKeys.put(1L, "long key");
        mixedKeys.put(null, "null key");
        c.put("map_mixed_keys", mixedKeys);
        c.put("optional_string", java.util.Optional.of("x"));
        c.put("enum_set", java.util.EnumSet.of(Color.RED, Color.BLUE));
        java.util.EnumMap<Color, String> enumMap = new java.util.EnumMap<>(Color.class);
        enumMap.put(Color.BLUE, "b");
        enumMap.put(Color.RED, "r");
        c.put("enum_map", enumMap);
        c.put("string_with_nul", "a\u0000b");
        return c;
    }

    static User user(long id, String name) {
        return new User(id, name, 31, name.toLowerCase() + "@example.com", true, new Date(1700000060000L));
    }

    static Mix mix(boolean selfRef) {
        Mix m = new Mix();
        m.A = 'a';
        m.B = "hello";
        m.CA = new Date(1700000000000L);
        m.CB = 1L << 40;
        m.CC = "world";
        m.CD = new double[] {1, 2, 3};
        Map<String, Object> d = new HashMap<>();
        d.put("A", 97);
        d.put("floats", m.CD);
        if (selfRef) {
            d.put("m", m);
        }
        m.D = d;
        return m;
    }

    static Derived derived() {
        Derived d = new Derived();
        d.baseId = 1;
        d.baseName = "base";
        d.baseTags = new ArrayList<>(Arrays.asList("t1", 2));
        d.derivedId = 2;
        d.derivedName = "derived";
        Map<String, Object> attrs = new HashMap<>();
        attrs.put("k", "v");
        d.derivedAttrs = attrs;
        return d;
    }

    static AllPrimitives allPrimitives() {
        AllPrimitives p = new AllPrimitives();
        p.z = true;
        p.b = -3;
        p.s = 1000;
        p.i = 100000;
        p.l = 1L << 33;
        p.f = 2.5f;
        p.d = 0.25;
        p.c = 'q';
        p.boxedZ = false;
        p.boxedB = 0;
        p.boxedS = 0;
        p.boxedI = 0;
        p.boxedL = 0L;
        p.boxedF = 0f;
        p.boxedD = 0d;
        p.boxedC = 'x';
        return p;
    }

    static Order order() {
        Order o = new Order();
        o.orderId = 42;
        o.buyer = user(5, "Eve");
        o.shipTo = new Address("Main St 1", "Springfield", 12345);
        o.items = new ArrayList<>(Arrays.asList("apple", "pear"));
        o.total = 12.5;
        o.color = Color.BLUE;
        return o;
    }

    private static String repeat(String s, int n) {
        StringBuilder b = new StringBuilder();
        for (int i = 0; i < n; i++) {
            b.append(s);
        }
        return b.toString();
    }

    private static String name(double v) {
        String s = Double.toString(v);
        if (v == (long) v && !Double.isInfinite(v) && Math.abs(v) < 1e18) {
            s = Long.toString((long) v);
            if (v == 0 && 1 / v < 0) {
                s = "m0";
            }
        }
        return s.replace("-", "m").replace(".", "_").replace("+", "");
    }

    private static String name(long v) {
        return Long.toString(v).replace("-", "m");
    }
}
