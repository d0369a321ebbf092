package io.github.hessianrs.interop;

import com.alibaba.com.caucho.hessian.io.LocaleHandle;
import com.alibaba.com.caucho.hessian.io.Serializer;
import com.alibaba.com.caucho.hessian.io.SerializerFactory;

import java.io.Serializable;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.Date;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.LinkedList;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Computes the canonical JSON (wire model) of Java objects: what hessian-lite's serializers put on
 * the wire for them. It asks the SerializerFactory which serializer hessian-lite would use for
 * each object and mirrors that serializer (type names, field order, which objects take a
 * reference slot). One Canon instance describes one Hessian2Output stream: references are
 * numbered across all top-level values given to it, in the order the serializer first writes
 * them.
 */
final class Canon {
    static final boolean LITE4 = classExists("com.alibaba.com.caucho.hessian.io.UnsafeSerializer");

    private final SerializerFactory factory;
    private final IdentityHashMap<Object, Integer> refs = new IdentityHashMap<>();
    private final List<Object> keepAlive = new ArrayList<>();
    private int nextRef;

    Canon(SerializerFactory factory) {
        this.factory = factory;
    }

    static boolean classExists(String name) {
        try {
            Class.forName(name, false, Canon.class.getClassLoader());
            return true;
        } catch (ClassNotFoundException e) {
            return false;
        }
    }

    /** Canonical JSON of one top-level value (references continue from previous values). */
    String value(Object o) throws Exception {
        StringBuilder sb = new StringBuilder();
        write(sb, o);
        return sb.toString();
    }

    /** Number of reference slots used so far. */
    int refCount() {
        return nextRef;
    }

    /** Mirrors Hessian2Output.addRef: true (and a ref emitted) if o was already written. */
    private boolean addRef(StringBuilder sb, Object o) {
        Integer r = refs.get(o);
        if (r != null) {
            Json.ref(sb, r);
            return true;
        }
        refs.put(o, nextRef++);
        return false;
    }

    private void write(StringBuilder sb, Object o) throws Exception {
        if (o == null) {
            Json.nul(sb);
            return;
        }
        Class<?> cl = o.getClass();
        Serializer ser = factory.getSerializer(cl);
        String sn = ser.getClass().getSimpleName();
        switch (sn) {
            case "BasicSerializer":
            case "ByteArraySerializer":
                basic(sb, o);
                return;
            case "CollectionSerializer":
                collection(sb, (Collection<?>) o);
                return;
            case "MapSerializer":
                map(sb, (Map<?, ?>) o);
                return;
            case "ArraySerializer":
                array(sb, (Object[]) o);
                return;
            case "JavaSerializer":
                if (getField(ser, "_writeReplace") != null) {
                    writeReplaced(sb, o, ser); // lite3: JavaSerializer handles writeReplace itself
                    return;
                }
                javaObject(sb, o, ser);
                return;
            case "UnsafeSerializer":
                javaObject(sb, o, ser);
                return;
            case "WriteReplaceSerializer": // lite4
                writeReplaced(sb, o, (Serializer) getField(ser, "_baseSerializer"));
                return;
            case "ThrowableSerializer":
                ((Throwable) o).getStackTrace(); // as the serializer does (fills the stackTrace field)
                javaObject(sb, o, LITE4 ? (Serializer) getField(ser, "_ser") : ser);
                return;
            case "EnumSerializer":
                enumObject(sb, (Enum<?>) o);
                return;
            case "StringValueSerializer":
                if (addRef(sb, o)) {
                    return;
                }
                Json.objectStart(sb, cl.getName());
                sb.append("[\"value\",");
                Json.string(sb, o.toString());
                sb.append(']');
                Json.objectEnd(sb);
                return;
            case "SqlDateSerializer":
                if (addRef(sb, o)) {
                    return;
                }
                Json.objectStart(sb, cl.getName());
                sb.append("[\"value\",");
                Json.date(sb, ((Date) o).getTime());
                sb.append(']');
                Json.objectEnd(sb);
                return;
            case "LocaleSerializer": {
                // writes a fresh LocaleHandle(locale.toString()): no ref for the Locale itself
                LocaleHandle h = new LocaleHandle(((Locale) o).toString());
                keepAlive.add(h);
                write(sb, h);
                return;
            }
            // java.time: lite3's Java8TimeSerializer / ZoneIdSerializer and lite4's XSerializer each
            // write a fresh java8.XHandle built from the value (the value itself takes no slot)
            case "Java8TimeSerializer":
                fresh(sb, handle((Class<?>) getField(ser, "handleType"), o));
                return;
            case "ZoneIdSerializer":
            case "DurationSerializer":
            case "InstantSerializer":
            case "LocalDateSerializer":
            case "LocalDateTimeSerializer":
            case "LocalTimeSerializer":
            case "MonthDaySerializer":
            case "OffsetDateTimeSerializer":
            case "OffsetTimeSerializer":
            case "PeriodSerializer":
            case "YearSerializer":
            case "YearMonthSerializer":
            case "ZonedDateTimeSerializer":
            case "ZoneOffsetSerializer":
                fresh(sb, handle(Class.forName(JAVA8 + sn.replace("Serializer", "Handle")), o));
                return;
            case "EnumSetSerializer":
                // a fresh (package-private) EnumSetHandler(elementType, toArray())
                fresh(sb, enumSetHandler((java.util.EnumSet<?>) o));
                return;
            case "ClassSerializer":
                // an object of class java.lang.Class with the single field 'name'
                if (addRef(sb, o)) {
                    return;
                }
                Json.objectStart(sb, "java.lang.Class");
                sb.append("[\"name\",");
                Json.string(sb, ((Class<?>) o).getName());
                sb.append(']');
                Json.objectEnd(sb);
                return;
            // lite4 serializers that write a fresh copy (the original takes no reference slot)
            case "UnmodifiableRandomAccessListSerializer":
                fresh(sb, Collections.unmodifiableList(new LinkedList<Object>((Collection<?>) o)));
                return;
            case "SynchronizedRandomAccessListSerializer":
                fresh(sb, Collections.synchronizedList(new LinkedList<Object>((Collection<?>) o)));
                return;
            case "List12Serializer":
            case "ListNSerializer":
            case "SubListSerializer":
                fresh(sb, new ArrayList<Object>((Collection<?>) o));
                return;
            case "Set12Serializer":
            case "SetNSerializer":
                fresh(sb, new java.util.HashSet<Object>((Collection<?>) o));
                return;
            case "Map1Serializer":
            case "MapNSerializer":
                fresh(sb, new HashMap<Object, Object>((Map<?, ?>) o));
                return;
            default:
                throw new IllegalStateException("no canonical model for serializer " + ser.getClass().getName()
                        + " (class " + cl.getName() + ")");
        }
    }

    private static final String JAVA8 = "com.alibaba.com.caucho.hessian.io.java8.";

    /** The handle hessian-lite writes for a java.time value: new XHandle(value). */
    private static Object handle(Class<?> handleType, Object value) throws Exception {
        return handleType.getConstructor(Object.class).newInstance(value);
    }

    /** What EnumSetSerializer writes for an EnumSet: new EnumSetHandler(elementType, toArray()). */
    private static Object enumSetHandler(java.util.EnumSet<?> set) throws Exception {
        Field elementType = java.util.EnumSet.class.getDeclaredField("elementType");
        elementType.setAccessible(true);
        java.lang.reflect.Constructor<?> c = Class.forName("com.alibaba.com.caucho.hessian.io.EnumSetHandler")
            .getDeclaredConstructor(Class.class, Object[].class);
        c.setAccessible(true);
        return c.newInstance(elementType.get(set), set.toArray());
    }

    private void fresh(StringBuilder sb, Object repl) throws Exception {
        keepAlive.add(repl);
        write(sb, repl);
    }

    /**
     * A class with a writeReplace() method: hessian-lite writes the replacement in the original's
     * place and then maps the original to the replacement's reference slot (replaceRef).
     */
    private void writeReplaced(StringBuilder sb, Object o, Serializer base) throws Exception {
        Integer r = refs.get(o);
        if (r != null) {
            Json.ref(sb, r);
            return;
        }
        java.lang.reflect.Method m = null;
        for (Class<?> c = o.getClass(); c != null && m == null; c = c.getSuperclass()) {
            for (java.lang.reflect.Method cand : c.getDeclaredMethods()) {
                if (cand.getName().equals("writeReplace") && cand.getParameterTypes().length == 0) {
                    m = cand;
                    break;
                }
            }
        }
        if (m == null) {
            throw new IllegalStateException("no writeReplace on " + o.getClass());
        }
        m.setAccessible(true);
        Object repl = m.invoke(o);
        if (repl == o) {
            javaObject(sb, o, base);
            return;
        }
        keepAlive.add(repl);
        write(sb, repl);
        Integer slot = refs.remove(repl);
        if (slot != null) {
            refs.put(o, slot);
        }
    }

    private void basic(StringBuilder sb, Object o) throws Exception {
        if (o instanceof Boolean) {
            Json.bool(sb, (Boolean) o);
        } else if (o instanceof Byte || o instanceof Short || o instanceof Integer) {
            Json.intv(sb, ((Number) o).intValue());
        } else if (o instanceof Long) {
            Json.longv(sb, (Long) o);
        } else if (o instanceof Float) {
            // BasicSerializer: writeDouble(Double.parseDouble(String.valueOf(floatValue)))
            Json.doublev(sb, wireDouble(Double.parseDouble(String.valueOf(((Float) o).floatValue()))));
        } else if (o instanceof Double) {
            Json.doublev(sb, wireDouble((Double) o));
        } else if (o instanceof Character) {
            Json.string(sb, String.valueOf(o));
        } else if (o instanceof String) {
            Json.string(sb, (String) o);
        } else if (o instanceof StringBuilder) {
            Json.string(sb, o.toString());
        } else if (o.getClass() == Date.class) {
            Json.date(sb, ((Date) o).getTime());
        } else if (o instanceof byte[]) {
            byte[] b = (byte[]) o;
            Json.binary(sb, b, 0, b.length);
        } else if (o instanceof char[]) {
            Json.string(sb, new String((char[]) o));
        } else if (o instanceof boolean[]) {
            if (addRef(sb, o)) {
                return;
            }
            boolean[] a = (boolean[]) o;
            Json.listStart(sb);
            for (int i = 0; i < a.length; i++) {
                comma(sb, i);
                Json.bool(sb, a[i]);
            }
            Json.typeTail(sb, "[boolean");
        } else if (o instanceof short[]) {
            if (addRef(sb, o)) {
                return;
            }
            short[] a = (short[]) o;
            Json.listStart(sb);
            for (int i = 0; i < a.length; i++) {
                comma(sb, i);
                Json.intv(sb, a[i]);
            }
            Json.typeTail(sb, "[short");
        } else if (o instanceof int[]) {
            if (addRef(sb, o)) {
                return;
            }
            int[] a = (int[]) o;
            Json.listStart(sb);
            for (int i = 0; i < a.length; i++) {
                comma(sb, i);
                Json.intv(sb, a[i]);
            }
            Json.typeTail(sb, "[int");
        } else if (o instanceof long[]) {
            if (addRef(sb, o)) {
                return;
            }
            long[] a = (long[]) o;
            Json.listStart(sb);
            for (int i = 0; i < a.length; i++) {
                comma(sb, i);
                Json.longv(sb, a[i]);
            }
            Json.typeTail(sb, "[long");
        } else if (o instanceof float[]) {
            if (addRef(sb, o)) {
                return;
            }
            float[] a = (float[]) o;
            Json.listStart(sb);
            for (int i = 0; i < a.length; i++) {
                comma(sb, i);
                Json.doublev(sb, wireDouble(a[i])); // widened, not via String
            }
            Json.typeTail(sb, "[float");
        } else if (o instanceof double[]) {
            if (addRef(sb, o)) {
                return;
            }
            double[] a = (double[]) o;
            Json.listStart(sb);
            for (int i = 0; i < a.length; i++) {
                comma(sb, i);
                Json.doublev(sb, wireDouble(a[i]));
            }
            Json.typeTail(sb, "[double");
        } else if (o instanceof String[]) {
            if (addRef(sb, o)) {
                return;
            }
            String[] a = (String[]) o;
            Json.listStart(sb);
            for (int i = 0; i < a.length; i++) {
                comma(sb, i);
                if (a[i] == null) {
                    Json.nul(sb);
                } else {
                    Json.string(sb, a[i]);
                }
            }
            Json.typeTail(sb, "[string");
        } else if (o.getClass() == Object[].class) {
            if (addRef(sb, o)) {
                return;
            }
            Object[] a = (Object[]) o;
            Json.listStart(sb);
            for (int i = 0; i < a.length; i++) {
                comma(sb, i);
                write(sb, a[i]);
            }
            Json.typeTail(sb, "[object");
        } else {
            throw new IllegalStateException("no canonical model for basic value of " + o.getClass().getName());
        }
    }

    private static void comma(StringBuilder sb, int i) {
        if (i > 0) {
            sb.append(',');
        }
    }

    /** The double value as Java reads it back from what Hessian2Output.writeDouble emits. */
    static double wireDouble(double value) {
        int intValue = (int) value;
        if (intValue == value) {
            return intValue; // 0x5b/0x5c/0x5d/0x5e or a later form; -0.0 becomes +0.0 here
        }
        int mills = (int) (value * 1000);
        if (0.001 * mills == value) {
            return 0.001 * mills;
        }
        return Double.longBitsToDouble(Double.doubleToLongBits(value)); // 'D': NaNs canonicalised
    }

    private void collection(StringBuilder sb, Collection<?> c) throws Exception {
        if (addRef(sb, c)) {
            return;
        }
        Class<?> cl = c.getClass();
        String type;
        if (!LITE4) {
            type = cl.getName(); // 3.2.x always sends the class name
        } else if (cl == ArrayList.class || !Serializable.class.isAssignableFrom(cl)) {
            type = null;
        } else {
            type = cl.getName();
        }
        Json.listStart(sb);
        int i = 0;
        for (Object e : c) {
            comma(sb, i++);
            write(sb, e);
        }
        Json.typeTail(sb, type);
    }

    private void map(StringBuilder sb, Map<?, ?> m) throws Exception {
        if (addRef(sb, m)) {
            return;
        }
        Class<?> cl = m.getClass();
        String type = (cl == HashMap.class || !(m instanceof Serializable)) ? null : cl.getName();
        Json.mapStart(sb);
        int i = 0;
        for (Map.Entry<?, ?> e : m.entrySet()) {
            comma(sb, i++);
            sb.append('[');
            write(sb, e.getKey());
            sb.append(',');
            write(sb, e.getValue());
            sb.append(']');
        }
        Json.typeTail(sb, type);
    }

    static String arrayType(Class<?> cl) {
        if (cl.isArray()) {
            return '[' + arrayType(cl.getComponentType());
        }
        String name = cl.getName();
        if (name.equals("java.lang.String")) {
            return "string";
        } else if (name.equals("java.lang.Object")) {
            return "object";
        } else if (name.equals("java.util.Date")) {
            return "date";
        }
        return name;
    }

    private void array(StringBuilder sb, Object[] a) throws Exception {
        if (addRef(sb, a)) {
            return;
        }
        Json.listStart(sb);
        for (int i = 0; i < a.length; i++) {
            comma(sb, i);
            write(sb, a[i]);
        }
        Json.typeTail(sb, arrayType(a.getClass()));
    }

    private void enumObject(StringBuilder sb, Enum<?> e) throws Exception {
        if (addRef(sb, e)) {
            return;
        }
        Class<?> cl = e.getClass();
        if (!cl.isEnum() && cl.getSuperclass().isEnum()) {
            cl = cl.getSuperclass();
        }
        Json.objectStart(sb, cl.getName());
        sb.append("[\"name\",");
        Json.string(sb, e.name());
        sb.append(']');
        Json.objectEnd(sb);
    }

    /** The fields hessian-lite's JavaSerializer / UnsafeSerializer writes, in its order. */
    static Field[] serializerFields(Serializer ser) throws Exception {
        return (Field[]) getField(ser, "_fields");
    }

    static Object getField(Object target, String name) throws Exception {
        for (Class<?> c = target.getClass(); c != null; c = c.getSuperclass()) {
            try {
                Field f = c.getDeclaredField(name);
                f.setAccessible(true);
                return f.get(target);
            } catch (NoSuchFieldException e) {
                // try superclass
            }
        }
        throw new NoSuchFieldException(name + " in " + target.getClass());
    }

    private void javaObject(StringBuilder sb, Object o, Serializer ser) throws Exception {
        if (addRef(sb, o)) {
            return;
        }
        Field[] fields = serializerFields(ser);
        Json.objectStart(sb, o.getClass().getName());
        for (int i = 0; i < fields.length; i++) {
            Field f = fields[i];
            if (Modifier.isStatic(f.getModifiers()) || Modifier.isTransient(f.getModifiers())) {
                throw new IllegalStateException("unexpected field " + f);
            }
            f.setAccessible(true);
            comma(sb, i);
            sb.append('[');
            Json.str(sb, f.getName());
            sb.append(',');
            Class<?> t = f.getType();
            if (t == int.class || t == short.class || t == byte.class) {
                Json.intv(sb, f.getInt(o));
            } else if (t == long.class) {
                Json.longv(sb, f.getLong(o));
            } else if (t == double.class || t == float.class) {
                Json.doublev(sb, wireDouble(f.getDouble(o)));
            } else if (t == boolean.class) {
                Json.bool(sb, f.getBoolean(o));
            } else if (t == char.class) {
                Json.string(sb, String.valueOf(f.getChar(o)));
            } else if (t == String.class) {
                String s = (String) f.get(o);
                if (s == null) {
                    Json.nul(sb);
                } else {
                    Json.string(sb, s);
                }
            } else if (t == Date.class || t == java.sql.Date.class || t == java.sql.Timestamp.class
                    || t == java.sql.Time.class) {
                // DateFieldSerializer: a plain date, whatever the subclass
                Date d = (Date) f.get(o);
                if (d == null) {
                    Json.nul(sb);
                } else {
                    Json.date(sb, d.getTime());
                }
            } else {
                write(sb, f.get(o));
            }
            sb.append(']');
        }
        Json.objectEnd(sb);
    }
}
