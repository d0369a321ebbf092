package io.github.hessianrs.interop;

import io.github.hessianrs.interop.model.Address;
import io.github.hessianrs.interop.model.AllPrimitives;
import io.github.hessianrs.interop.model.Base;
import io.github.hessianrs.interop.model.Color;
import io.github.hessianrs.interop.model.Derived;
import io.github.hessianrs.interop.model.Event;
import io.github.hessianrs.interop.model.Holder;
import io.github.hessianrs.interop.model.Mix;
import io.github.hessianrs.interop.model.Node;
import io.github.hessianrs.interop.model.Op;
import io.github.hessianrs.interop.model.Order;
import io.github.hessianrs.interop.model.User;
import io.github.hessianrs.interop.model.WithTransient;

import java.io.IOException;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.time.MonthDay;
import java.time.OffsetDateTime;
import java.time.OffsetTime;
import java.time.Period;
import java.time.Year;
import java.time.YearMonth;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.Date;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.UUID;

/** The test-vector cases. Each case is one stream of one or more top-level values. */
final class Cases {
    private Cases() {
    }

    static final class Case {
        final String name;
        final Object[] values;
        final String note;

        Case(String name, String note, Object... values) {
            if (!name.matches("[a-z0-9_-]+")) {
                throw new IllegalArgumentException("bad case name " + name);
            }
            this.name = name;
            this.note = note;
            this.values = values;
        }
    }

    private static final List<Case> cases = new ArrayList<>();

    /**
     * Expected wire structure for a few cases, checked by gen against the byte-level parse:
     * {class definitions, class-ref uses (object instances), type-name refs, value refs ('Q'), ref slots}.
     */
    static final Map<String, int[]> STRUCTURE = new HashMap<>();

    static {
        STRUCTURE.put("pojo_user", new int[] {1, 1, 0, 0, 1});
        STRUCTURE.put("pojo_list_of_users", new int[] {1, 3, 0, 0, 4});
        STRUCTURE.put("pojo_same_user_twice", new int[] {1, 1, 0, 1, 2});
        STRUCTURE.put("multi_two_users", new int[] {1, 2, 0, 0, 2});
        STRUCTURE.put("multi_same_list_twice", new int[] {0, 0, 0, 1, 1});
        STRUCTURE.put("multi_typed_lists", new int[] {0, 0, 1, 0, 2});
        STRUCTURE.put("multi_typed_maps", new int[] {0, 0, 1, 0, 2});
        STRUCTURE.put("multi_enums", new int[] {1, 2, 0, 1, 2});
        STRUCTURE.put("multi_mixed_pojos", new int[] {2, 4, 0, 0, 4});
        STRUCTURE.put("mix_self_ref", new int[] {1, 1, 0, 2, 3});
        STRUCTURE.put("mix_no_self_ref", new int[] {1, 1, 0, 1, 3});
        STRUCTURE.put("pojo_node_self_cycle", new int[] {1, 1, 0, 1, 1});
        STRUCTURE.put("pojo_node_two_cycle", new int[] {1, 2, 0, 1, 2});
        STRUCTURE.put("list_self_reference", new int[] {0, 0, 0, 1, 1});
        STRUCTURE.put("enum_list", new int[] {1, 3, 0, 1, 4});
        STRUCTURE.put("locale_twice", new int[] {1, 2, 0, 0, 3});
        STRUCTURE.put("exception_cause_chain", new int[] {2, 2, 1, 2, 5});
    }

    /**
     * Cases that some generation cannot read back; gen leaves them out of that generation's vectors
     * (lite3 writes List.of/Map.of as an empty java.util.CollSer: the elements are lost).
     */
    static final java.util.Set<String> MAY_FAIL_DECODE = new HashSet<>(
        Arrays.asList("list_java9_list_of", "map_java9_map_of"));

    /** Explanations for cases where hessian-lite does not decode what it wrote (per generation). */
    static String decodeNote(String name, boolean lite4) {
        if (name.startsWith("list_unmodifiable") || name.equals("list_arrays_aslist")
                || name.equals("list_singleton") || name.equals("list_synchronized")) {
            return "hessian-lite cannot instantiate the JDK-private list class named by the type and reads it as "
                + (lite4 ? "an ArrayList (re-written untyped)" : "an ArrayList (re-written typed java.util.ArrayList)");
        }
        if (name.equals("enummap")) {
            return "hessian-lite cannot instantiate java.util.EnumMap (it has no no-argument constructor) and reads "
                + "it as a HashMap: the EnumMap type is lost" + (lite4 ? ", and so is the key order" : "");
        }
        if (name.equals("map_empty_map")) {
            return "hessian-lite cannot instantiate java.util.Collections$EmptyMap and reads it as a HashMap";
        }
        if (name.startsWith("exception_")) {
            return "Throwable.suppressedExceptions is the JDK's Collections.emptyList() sentinel, written as a list "
                + "typed java.util.Collections$EmptyList; hessian-lite reads it back as an ArrayList"
                + (lite4 ? " (which lite4 re-writes untyped)" : " (typed java.util.ArrayList)");
        }
        if (name.equals("pojo_all_primitives") && lite4) {
            return "hessian-lite 4.0.x bug: its Unsafe field deserializer stores float fields with "
                + "Unsafe.putDouble, so the float field 'f' reads back as 0.0 and the 4 bytes spill into the next "
                + "field in memory (here the char 'c'); the bytes on the wire are correct";
        }
        return null;
    }

    private static void add(String name, Object... values) {
        cases.add(new Case(name, null, values));
    }

    private static void addNote(String name, String note, Object... values) {
        cases.add(new Case(name, note, values));
    }

    /** A single top-level value (an Object[] argument must not be spread into several values). */
    private static void one(String name, Object value) {
        cases.add(new Case(name, null, new Object[] {value}));
    }

    private static void oneNote(String name, String note, Object value) {
        cases.add(new Case(name, note, new Object[] {value}));
    }

    private static String numName(long v) {
        return v < 0 ? "-" + Long.toString(v).substring(1) : Long.toString(v);
    }

    static String repeat(String unit, int count) {
        StringBuilder sb = new StringBuilder(unit.length() * count);
        for (int i = 0; i < count; i++) {
            sb.append(unit);
        }
        return sb.toString();
    }

    static String ascii(int len) {
        StringBuilder sb = new StringBuilder(len);
        for (int i = 0; i < len; i++) {
            sb.append((char) ('a' + i % 26));
        }
        return sb.toString();
    }

    /** len UTF-16 code units of emoji; for odd len a leading 'a' shifts the pairs so index 0x7fff is a high surrogate. */
    static String emoji(int len) {
        StringBuilder sb = new StringBuilder(len);
        if (len % 2 == 1) {
            sb.append('a');
        }
        String[] faces = {"\uD83D\uDE00", "\uD83D\uDE01", "\uD83C\uDF89", "\uD83E\uDD80"}; // 😀 😁 🎉 🦀
        int i = 0;
        while (sb.length() < len) {
            sb.append(faces[i++ % faces.length]);
        }
        return sb.toString();
    }

    static String mixed(int len) {
        String unit = "ab\u4e2d\u6587\uD83D\uDE00"; // a b 中 文 😀 = 6 code units
        StringBuilder sb = new StringBuilder(len + 6);
        while (sb.length() < len) {
            sb.append(unit);
        }
        sb.setLength(len);
        if (len > 0 && Character.isHighSurrogate(sb.charAt(len - 1))) {
            sb.setCharAt(len - 1, 'z');
        }
        return sb.toString();
    }

    static byte[] bytes(int len) {
        byte[] b = new byte[len];
        for (int i = 0; i < len; i++) {
            b[i] = (byte) (i * 31);
        }
        return b;
    }

    static User user(long id, String name) {
        return new User(id, name, 30 + (int) id, name.toLowerCase(Locale.ROOT) + "@example.com", id % 2 == 1,
                new Date(1700000000000L + id * 60000L));
    }

    static <T extends Throwable> T noStack(T t) {
        t.setStackTrace(new StackTraceElement[0]);
        return t;
    }

    static Mix mix(boolean selfRef) {
        Mix m = new Mix();
        m.A = 'a';
        m.B = "hello";
        m.CA = new Date(1700000000000L);
        m.CB = 1L << 40;
        m.CC = "world";
        m.CD = new double[] {1, 2, 3};
        m.D = new HashMap<>();
        m.D.put("floats", m.CD);
        m.D.put("A", m.A);
        if (selfRef) {
            m.D.put("m", m);
        }
        return m;
    }

    static synchronized List<Case> all() {
        if (!cases.isEmpty()) {
            return cases;
        }
        // ---- null / boolean
        one("null", null);
        one("true", Boolean.TRUE);
        one("false", Boolean.FALSE);

        // ---- int
        int[] ints = {0, 1, -1, -16, -17, 47, 48, -2048, -2049, 2047, 2048, -262144, -262145, 262143, 262144,
            Integer.MIN_VALUE, Integer.MAX_VALUE};
        for (int v : ints) {
            one("int_" + numName(v), v);
        }
        oneNote("int_short_-300", "java.lang.Short is written as a Hessian int", (short) -300);
        oneNote("int_short_32767", "java.lang.Short is written as a Hessian int", Short.MAX_VALUE);
        oneNote("int_byte_-128", "java.lang.Byte is written as a Hessian int", Byte.MIN_VALUE);
        oneNote("int_byte_100", "java.lang.Byte is written as a Hessian int", (byte) 100);

        // ---- long
        long[] longs = {0, -8, -9, 15, 16, -2048, -2049, 2047, 2048, -262144, -262145, 262143, 262144,
            Integer.MIN_VALUE, Integer.MAX_VALUE, Integer.MIN_VALUE - 1L, Integer.MAX_VALUE + 1L,
            Long.MIN_VALUE, Long.MAX_VALUE};
        for (long v : longs) {
            one("long_" + numName(v), v);
        }

        // ---- double
        Object[][] doubles = {
            {"0", 0.0}, {"neg0", -0.0}, {"1", 1.0}, {"-1", -1.0}, {"2", 2.0}, {"-128", -128.0}, {"127", 127.0},
            {"-129", -129.0}, {"128", 128.0}, {"-32768", -32768.0}, {"32767", 32767.0}, {"-32769", -32769.0},
            {"32768", 32768.0}, {"100000", 100000.0}, {"0_5", 0.5}, {"1_5", 1.5}, {"12_25", 12.25},
            {"0_001", 0.001}, {"-0_001", -0.001}, {"3_14159", 3.14159}, {"2147483_647", 2147483.647},
            {"2147483_648", 2147483.648}, {"-2147483_648", -2147483.648}, {"0_1", 0.1},
            {"1e300", 1e300}, {"-1e-300", -1e-300}, {"nan", Double.NaN}, {"inf", Double.POSITIVE_INFINITY},
            {"-inf", Double.NEGATIVE_INFINITY}, {"min_value", Double.MIN_VALUE}, {"max_value", Double.MAX_VALUE},
            {"2147483648", 2147483648.0}, {"-2147483649", -2147483649.0},
        };
        for (Object[] d : doubles) {
            String name = "double_" + d[0];
            if (d[0].equals("neg0")) {
                oneNote(name, "-0.0 is written as 0x5b (zero); Java decodes +0.0", d[1]);
            } else {
                one(name, d[1]);
            }
        }
        oneNote("double_float_1_5", "java.lang.Float is written as a Hessian double", 1.5f);
        oneNote("double_float_0_1", "Float 0.1f: hessian-lite writes Double.parseDouble(String.valueOf(f)) = 0.1",
            0.1f);
        oneNote("double_float_3_4e38", "Float.MAX_VALUE via String.valueOf", Float.MAX_VALUE);

        // ---- strings
        int[] lens = {0, 1, 31, 32, 1023, 1024, 32767, 32768, 32769, 65536};
        for (int len : lens) {
            one("string_ascii_" + len, ascii(len));
        }
        for (int len : lens) {
            if (len == 0) {
                continue;
            }
            one("string_cjk_" + len, repeat("\u4e2d", len));
        }
        for (int len : new int[] {2, 31, 32, 1023, 1024, 32767, 32768, 32769, 65536}) {
            oneNote("string_emoji_" + len, "length in UTF-16 code units; odd lengths start with 'a' so that "
                + "index 0x7fff is a high surrogate", emoji(len));
        }
        oneNote("string_emoji_65536_shifted", "'a' + 32767 emoji + 'b': the first 0x8000-unit chunk would split a "
            + "surrogate pair, so hessian-lite writes a 0x7fff-unit chunk", "a" + emoji(65534) + "b");
        one("string_mixed_short", "h\u00e9llo \u4e16\u754c \uD83D\uDE00!");
        one("string_mixed_40000", mixed(40000));
        one("string_two_byte_utf8", "\u00e9\u00e8\u00ea\u00eb\u00ff\u0100\u07ff");
        one("string_controls", "a\u0000b\u0001\t\n\r\"\\\u007f");
        // Lone surrogates: legal in a Java String, written one UTF-16 unit at a time like any char.
        one("string_lone_high", "a\uD800b");
        one("string_lone_low", "\uDC00");
        one("string_reversed_pair", "x\uDE00\uD83Dy");
        one("string_lone_high_last", "end\uDBFF");
        oneNote("string_lone_high_chunk_edge", "a lone high surrogate at index 0x7fff: the first chunk is cut to "
            + "0x7fff units as for a pair", ascii(0x7fff) + "\uD800" + ascii(10));
        one("list_lone_surrogates", new ArrayList<>(Arrays.asList("\uD800", "ok", "\uDFFF\uD800")));
        oneNote("char_x", "java.lang.Character is written as a 1-char string", 'x');
        oneNote("char_cjk", "java.lang.Character is written as a 1-char string", '\u4e2d');

        // ---- binary
        for (int len : new int[] {0, 1, 15, 16, 1023, 1024, 4093, 4094, 8189, 8190, 32768, 65536}) {
            one("binary_" + len, bytes(len));
        }
        // Binaries after other values of the stream: hessian-lite 4 (buffer 8192, no flush before a
        // binary) sizes the first chunk by what its buffer already holds; lite3 flushes first.
        addNote("binary_after_string", "lite4: first chunk 8189 - 6 buffered bytes", "hello", bytes(10000));
        addNote("binary_after_8000_chars", "lite4: a 500-byte binary split 186 + 314", ascii(8000), bytes(500));
        addNote("binary_buffer_nearly_full", "lite4: 14 bytes left (< 16): flush, then a non-final chunk of "
            + "all 100 bytes and an empty final one", ascii(8172), bytes(100));
        add("binary_twice_chunked", bytes(9000), bytes(9000));
        addNote("binary_after_long_string", "lite4: the string's text crosses two flushes", ascii(20000),
            bytes(10000));
        addNote("binary_fills_buffer", "lite4: a binary that leaves 8185 bytes buffered; the int after it "
            + "flushes", ascii(100), bytes(8080), 7, bytes(9000));
        one("binary_in_list", new ArrayList<>(Arrays.asList(1, "x", bytes(9000), bytes(300))));

        // ---- dates
        one("date_epoch", new Date(0));
        one("date_2020_minute", new Date(1577836800000L));
        one("date_ms", new Date(1700000000123L));
        one("date_negative_ms", new Date(-1L));
        one("date_negative_minute", new Date(-86400000L * 365));
        long bigMinute = (Long.MAX_VALUE / 2) / 60000L * 60000L;
        oneNote("date_big_minute", "whole minute whose minute count does not fit in 32 bits: written as 0x4a",
            new Date(bigMinute));
        one("date_max_int_minutes", new Date(60000L * Integer.MAX_VALUE));
        one("date_min_int_minutes", new Date(60000L * Integer.MIN_VALUE));

        // ---- lists
        one("list_empty", new ArrayList<>());
        for (int n : new int[] {1, 7, 8, 9}) {
            List<Object> l = new ArrayList<>();
            for (int i = 0; i < n; i++) {
                l.add(i);
            }
            one("list_ints_" + n, l);
        }
        one("list_mixed", new ArrayList<>(Arrays.asList(1, "two", 3.5, true, null, 4L, new Date(1577836800000L),
            bytes(3))));
        one("list_linkedlist", new LinkedList<>(Arrays.asList("a", "b", "c")));
        one("list_hashset_1", new HashSet<>(Collections.singletonList("only")));
        one("list_treeset", new TreeSet<>(Arrays.asList(3, 1, 2)));
        List<Object> inner1 = new ArrayList<>(Arrays.asList(1, 2));
        List<Object> inner2 = new ArrayList<>(Arrays.asList("x"));
        List<Object> nested = new ArrayList<>(Arrays.asList(inner1, inner2, new ArrayList<>()));
        one("list_nested", nested);
        one("array_int_0", new int[0]);
        one("array_int_3", new int[] {1, -1, 1000});
        one("array_int_8", new int[] {0, 1, 2, 3, 4, 5, 6, 7});
        one("array_long", new long[] {0, 1L << 40, -9});
        one("array_double", new double[] {0.0, 1.5, -2.25, 1e300});
        one("array_float", new float[] {1.5f, 0.1f});
        one("array_short", new short[] {1, -300});
        one("array_boolean", new boolean[] {true, false, true});
        oneNote("array_char", "char[] is written as a string", new char[] {'h', 'i'});
        one("array_string", new String[] {"a", null, "\u4e2d"});
        one("array_string_0", new String[0]);
        one("array_object", new Object[] {1, "s", null, 2.5, new int[] {7}});
        one("array_object_0", new Object[0]);
        one("array_integer_boxed", new Integer[] {1, 2, null});
        one("array_string_2d", new String[][] {{"a"}, {"b", "c"}});
        one("array_date", new Date[] {new Date(0), new Date(1700000000123L)});
        one("array_user", new User[] {user(1, "Alice")});
        List<Object> same = new ArrayList<>();
        List<Object> shared = new ArrayList<>(Arrays.asList("s"));
        same.add(shared);
        same.add(shared);
        one("list_same_object_twice", same);
        List<Object> selfList = new ArrayList<>();
        selfList.add(1);
        selfList.add(selfList);
        oneNote("list_self_reference", "an ArrayList containing itself", selfList);
        oneNote("list_unmodifiable", "Collections.unmodifiableList(ArrayList): lite3 writes its writeReplace "
            + "replacement (Collections$UnmodifiableList); lite4 a fresh unmodifiableList(new LinkedList(..))",
            Collections.unmodifiableList(new ArrayList<>(Arrays.asList(1, 2))));
        List<Object> unmod = Collections.unmodifiableList(new ArrayList<>(Arrays.asList("u")));
        one("list_unmodifiable_twice", new ArrayList<>(Arrays.asList(unmod, unmod)));
        oneNote("list_java9_list_of", "List.of(1, 2, 3) (ImmutableCollections$ListN): lite3 writes its "
            + "writeReplace replacement java.util.CollSer, lite4 a fresh ArrayList", List.of(1, 2, 3));
        oneNote("map_java9_map_of", "Map.of(\"k\", 1): lite3 writes java.util.CollSer, lite4 a fresh HashMap",
            Map.of("k", 1));
        one("list_arrays_aslist", Arrays.asList("p", "q"));
        one("list_singleton", Collections.singletonList(5));
        one("list_synchronized", Collections.synchronizedList(new ArrayList<>(Arrays.asList(1))));
        one("list_vector", new java.util.Vector<>(Arrays.asList(1, 2)));
        one("map_empty_map", Collections.emptyMap());
        one("map_concurrent", new java.util.concurrent.ConcurrentHashMap<>(Collections.singletonMap("c", 1)));
        int[] sharedArr = {5, 6};
        one("list_same_array_twice", new ArrayList<>(Arrays.asList(sharedArr, sharedArr)));

        // ---- maps
        one("map_empty", new HashMap<>());
        Map<String, Object> si = new HashMap<>();
        si.put("a", 1);
        si.put("b", 2);
        si.put("c", 3);
        one("map_string_int", si);
        TreeMap<String, Object> tm = new TreeMap<>();
        tm.put("z", 26);
        tm.put("a", 1);
        tm.put("m", "middle");
        one("map_treemap", tm);
        LinkedHashMap<String, Object> lhm = new LinkedHashMap<>();
        lhm.put("first", 1);
        lhm.put("second", 2L);
        lhm.put("third", "3");
        one("map_linkedhashmap", lhm);
        Map<Object, Object> ik = new HashMap<>();
        ik.put(1, "one");
        ik.put(2, "two");
        ik.put(-100, "minus hundred");
        one("map_int_keys", ik);
        Map<String, Object> nv = new HashMap<>();
        nv.put("k", null);
        one("map_null_value", nv);
        Map<String, Object> outer = new HashMap<>();
        Map<String, Object> innerMap = new HashMap<>();
        innerMap.put("x", 1.5);
        outer.put("inner", innerMap);
        outer.put("list", new ArrayList<>(Arrays.asList(1, 2)));
        one("map_nested", outer);
        Map<Object, Object> mixedKeys = new LinkedHashMap<>();
        mixedKeys.put(1L, "long key");
        mixedKeys.put(true, "bool key");
        mixedKeys.put(null, "null key");
        one("map_mixed_keys", mixedKeys);
        Map<String, Object> sameVal = new HashMap<>();
        sameVal.put("a", shared);
        sameVal.put("b", shared);
        one("map_same_value_twice", sameVal);

        // ---- POJOs
        one("pojo_user", user(1, "Alice"));
        User nullUser = new User();
        one("pojo_user_defaults", nullUser);
        Order order = new Order();
        order.orderId = 42;
        order.buyer = user(2, "Bob");
        order.shipTo = new Address("1 Main St", "Springfield", 12345);
        order.items = new ArrayList<>(Arrays.asList("apple", "pear"));
        order.total = 12.25;
        order.color = Color.GREEN;
        one("pojo_nested", order);
        List<Object> users = new ArrayList<>(Arrays.asList(user(1, "Alice"), user(2, "Bob"), user(3, "Carol")));
        oneNote("pojo_list_of_users", "one class definition, then the instances reuse it", users);
        User twice = user(7, "Twice");
        one("pojo_same_user_twice", new ArrayList<>(Arrays.asList(twice, twice)));
        Node self = new Node(1);
        self.next = self;
        oneNote("pojo_node_self_cycle", "Node whose next is itself", self);
        Node a = new Node(1);
        Node b = new Node(2);
        a.next = b;
        b.next = a;
        oneNote("pojo_node_two_cycle", "a.next = b, b.next = a", a);
        Derived d = new Derived();
        d.baseId = 1;
        d.baseName = "base";
        d.baseTags = new ArrayList<>(Arrays.asList("t"));
        d.derivedId = 2;
        d.derivedName = "derived";
        d.derivedAttrs = new HashMap<>();
        d.derivedAttrs.put("k", "v");
        oneNote("pojo_superclass", "fields of the superclass come before the subclass's within each group", d);
        Base base = new Base();
        base.baseId = 9;
        one("pojo_base_only", base);
        WithTransient wt = new WithTransient();
        wt.kept = "kept";
        wt.skipped = "skipped";
        wt.skippedInt = 99;
        wt.alsoKept = 5;
        oneNote("pojo_transient_static", "transient and static fields are not written", wt);
        AllPrimitives ap = new AllPrimitives();
        ap.z = true;
        ap.b = -5;
        ap.s = 300;
        ap.i = 70000;
        ap.l = 1L << 40;
        ap.f = 1.25f;
        ap.d = 3.14159;
        ap.c = '\u4e2d';
        ap.boxedZ = false;
        ap.boxedB = 7;
        ap.boxedS = -2;
        ap.boxedI = 100;
        ap.boxedL = -1L;
        ap.boxedF = 0.1f;
        ap.boxedD = 0.001;
        ap.boxedC = 'q';
        oneNote("pojo_all_primitives", "byte/short fields are ints, float fields are widened doubles, char is a "
            + "string; boxed Float goes through String.valueOf", ap);
        AllPrimitives apDefault = new AllPrimitives();
        one("pojo_all_primitives_default", apDefault);
        oneNote("enum_value", "an enum is an object with the single field 'name'", Color.RED);
        one("enum_list", new ArrayList<>(Arrays.asList(Color.RED, Color.GREEN, Color.RED, Color.BLUE)));
        oneNote("enum_constant_body", "an enum constant with a body: type is the enum class, not Op$1", Op.PLUS);
        oneNote("mix_self_ref", "dubbo-go-hessian2 benchmark struct: A='a'(97), B=\"hello\", "
            + "CA=Date(1700000000000), CB=1<<40, CC=\"world\", CD={1,2,3}, D={floats:CD, A:97, m:<self>}", mix(true));
        oneNote("mix_no_self_ref", "like mix_self_ref without D.m", mix(false));
        Holder h = new Holder();
        h.value = new Date(5);
        h.stamp = new java.sql.Timestamp(1700000000123L);
        h.ints = new int[] {1};
        oneNote("pojo_holder_timestamp_field", "a Timestamp-typed field is written as a plain date", h);

        // ---- well-known JDK types
        one("bigdecimal_123_456", new BigDecimal("123.456"));
        one("bigdecimal_0", new BigDecimal("0"));
        one("bigdecimal_-1e10", new BigDecimal("-1E+10"));
        one("bigdecimal_list", new ArrayList<>(Arrays.asList(new BigDecimal("1.5"), new BigDecimal("2.5"))));
        one("biginteger_12345678901234567890", new BigInteger("12345678901234567890"));
        one("biginteger_-1", BigInteger.valueOf(-1));
        one("biginteger_0", BigInteger.ZERO);
        one("locale_zh_cn", Locale.SIMPLIFIED_CHINESE);
        one("locale_en", Locale.ENGLISH);
        one("locale_twice", new ArrayList<>(Arrays.asList(Locale.US, Locale.US)));
        one("uuid", UUID.fromString("123e4567-e89b-12d3-a456-426614174000"));
        one("exception_runtime", noStack(new RuntimeException("boom")));
        one("exception_cause_chain", noStack(new IllegalStateException("outer",
            noStack(new IOException("inner")))));
        one("sql_timestamp", new java.sql.Timestamp(1700000000123L));
        one("sql_date", new java.sql.Date(1577836800000L));
        one("sql_time", new java.sql.Time(45296789L));
        one("class_string", String.class);
        one("currency_eur", java.util.Currency.getInstance("EUR"));
        oneNote("enumset_colors", "an EnumSet is a fresh EnumSetHandler: objects ([object of the constants), "
            + "type (the enum's Class)", java.util.EnumSet.of(Color.RED, Color.BLUE));
        one("enumset_empty", java.util.EnumSet.noneOf(Color.class));
        java.util.EnumMap<Color, Integer> enumMap = new java.util.EnumMap<>(Color.class);
        enumMap.put(Color.GREEN, 2);
        enumMap.put(Color.RED, 1);
        oneNote("enummap", "an EnumMap is a map typed java.util.EnumMap, keys in enum order", enumMap);
        one("object_array_mixed", new Object[] {1, "a", 2L, LocalDate.of(2024, 1, 2), null});

        // ---- java.time: each written as a com.alibaba.com.caucho.hessian.io.java8.*Handle object
        LocalDate day = LocalDate.of(2024, 2, 29);
        LocalTime time = LocalTime.of(13, 45, 30, 123456789);
        LocalDateTime dateTime = LocalDateTime.of(day, time);
        one("time_local_date", day);
        one("time_local_date_min", LocalDate.MIN);
        one("time_local_time", time);
        one("time_local_time_midnight", LocalTime.MIDNIGHT);
        one("time_local_date_time", dateTime);
        one("time_instant", Instant.ofEpochSecond(1700000000L, 123456789));
        one("time_instant_before_epoch", Instant.ofEpochSecond(-1L, 999999999));
        one("time_duration", Duration.ofSeconds(3661, 5));
        one("time_duration_negative", Duration.ofMillis(-1500));
        one("time_period", Period.of(1, -2, 3));
        one("time_year", Year.of(2024));
        one("time_year_month", YearMonth.of(2024, 2));
        one("time_month_day", MonthDay.of(2, 29));
        one("time_zone_offset", ZoneOffset.ofHoursMinutes(5, 30));
        one("time_zone_offset_utc", ZoneOffset.UTC);
        one("time_zone_id", ZoneId.of("Europe/Paris"));
        one("time_offset_time", OffsetTime.of(time, ZoneOffset.ofHours(-5)));
        one("time_offset_date_time", OffsetDateTime.of(dateTime, ZoneOffset.ofHours(8)));
        one("time_zoned_date_time", ZonedDateTime.of(dateTime, ZoneId.of("Asia/Shanghai")));
        one("time_zoned_date_time_utc", ZonedDateTime.of(dateTime, ZoneOffset.UTC));
        one("time_list", new ArrayList<>(Arrays.asList(day, day, dateTime, Instant.EPOCH)));
        Event event = new Event();
        event.id = UUID.fromString("123e4567-e89b-12d3-a456-426614174000");
        event.at = dateTime;
        event.day = day;
        event.stamp = Instant.ofEpochSecond(1700000000L, 5);
        event.amount = new BigDecimal("1234.50");
        event.color = Color.GREEN;
        oneNote("pojo_event", "a DTO with UUID, LocalDateTime, LocalDate, Instant, BigDecimal and an enum", event);

        // ---- multi-value streams
        addNote("multi_two_users", "two top-level Users: the second reuses the class definition (0x60)",
            user(1, "Alice"), user(2, "Bob"));
        List<Object> sharedList = new ArrayList<>(Arrays.asList(1, 2, 3));
        addNote("multi_same_list_twice", "the same ArrayList written as two top-level values: the second is a ref",
            sharedList, sharedList);
        addNote("multi_typed_lists", "two int[] values: the second reuses the type name by type-ref",
            new int[] {1, 2}, new int[] {3});
        addNote("multi_typed_maps", "two TreeMaps: the second reuses the type name", new TreeMap<>(tm),
            new TreeMap<>(Collections.singletonMap("k", "v")));
        add("multi_scalars", 1, "two", 3L, 4.5, null, true);
        add("multi_enums", Color.RED, Color.BLUE, Color.RED);
        add("multi_mixed_pojos", user(1, "Alice"), new Address("street", "city", 1), user(3, "Carol"),
            new Address("s2", "c2", 2));
        return cases;
    }
}
