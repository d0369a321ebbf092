package io.github.hessianrs.fastjson2;

import com.alibaba.fastjson2.JSON;
import com.alibaba.fastjson2.JSONArray;
import com.alibaba.fastjson2.JSONB;
import com.alibaba.fastjson2.JSONObject;
import com.alibaba.fastjson2.JSONReader;
import com.alibaba.fastjson2.JSONWriter;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.Arrays;
import java.util.Map;

public final class Main {
    /** The features Dubbo's FastJson2ObjectOutput.writeObject passes to JSONB.toBytes (3.2 and 3.3). */
    static final JSONWriter.Feature[] DUBBO_WRITE = {
        JSONWriter.Feature.WriteClassName,
        JSONWriter.Feature.FieldBased,
        JSONWriter.Feature.ErrorOnNoneSerializable,
        JSONWriter.Feature.ReferenceDetection,
        JSONWriter.Feature.WriteNulls,
        JSONWriter.Feature.NotWriteDefaultValue,
        JSONWriter.Feature.NotWriteHashMapArrayListClassName,
        JSONWriter.Feature.WriteNameAsSymbol,
    };

    public static void main(String[] args) throws Exception {
        switch (args.length == 0 ? "" : args[0]) {
            case "dump": {
                for (Map.Entry<String, Object> e : Cases.all().entrySet()) {
                    byte[] b = JSONB.toBytes(e.getValue(), DUBBO_WRITE);
                    System.out.println("== " + e.getKey() + " " + hex(b, 200));
                    try {
                        System.out.println(JSONB.toJSONString(b));
                    } catch (RuntimeException x) {
                        System.out.println("(JSONBDump: " + x.getMessage() + ")");
                    }
                }
                break;
            }
            case "gen":
                gen(Paths.get(args[1]));
                break;
            case "check":
                System.exit(check(Paths.get(args[1]), Paths.get(args[2])) ? 0 : 1);
                break;
            case "wire":
                System.out.println(JSON.toJSONString(WireCanon.of(Files.readAllBytes(Paths.get(args[1])))));
                break;
            default:
                System.err.println("usage: gen OUTDIR | check JAVA_DIR OURS_DIR | dump");
                System.exit(2);
        }
    }

    /** The features Dubbo's FastJson2ObjectInput.readObject passes to JSONB.parseObject, plus
     *  SupportAutoType in place of Dubbo's allow-list filter (which accepts the classes it knows). */
    static final JSONReader.Feature[] DUBBO_READ = {
        JSONReader.Feature.UseDefaultConstructorAsPossible,
        JSONReader.Feature.UseNativeObject,
        JSONReader.Feature.IgnoreAutoTypeNotMatch,
        JSONReader.Feature.FieldBased,
        JSONReader.Feature.SupportAutoType,
    };

    /** Writes one X.bin per case (JSONB.toBytes with Dubbo's features: the bytes Dubbo frames
     *  with a 4-byte length) and manifest.json, then checks fastjson2 reads every file back. */
    static void gen(Path out) throws Exception {
        // fastjson2 writes java.sql.Time and Timestamp as local times of the JVM's zone: pin it.
        java.util.TimeZone.setDefault(java.util.TimeZone.getTimeZone("UTC"));
        Files.createDirectories(out);
        JSONArray manifest = new JSONArray();
        for (Map.Entry<String, Object> e : Cases.all().entrySet()) {
            byte[] b = JSONB.toBytes(e.getValue(), DUBBO_WRITE);
            // Deterministic output only: a second run gives the same bytes.
            if (!Arrays.equals(b, JSONB.toBytes(e.getValue(), DUBBO_WRITE))) {
                throw new IllegalStateException(e.getKey() + ": output differs between runs");
            }
            Files.write(out.resolve(e.getKey() + ".bin"), b);
            JSONObject m = new JSONObject();
            m.put("name", e.getKey());
            m.put("wire", WireCanon.of(b));
            manifest.add(m);
        }
        for (Map.Entry<String, Object> e : Cases.all().entrySet()) {
            JSONB.parseObject(Files.readAllBytes(out.resolve(e.getKey() + ".bin")), Object.class, DUBBO_READ);
        }
        // Dubbo's FastJson2ObjectOutput frames each object as a 4-byte big-endian length and the
        // JSONB document: a request body's first fields, then a POJO argument.
        byte[] body = DubboFrames.write();
        JSONArray frameCanon = new JSONArray();
        for (int at = 0; at < body.length; ) {
            int len = ((body[at] & 0xff) << 24) | ((body[at + 1] & 0xff) << 16) | ((body[at + 2] & 0xff) << 8) | (body[at + 3] & 0xff);
            frameCanon.add(WireCanon.of(Arrays.copyOfRange(body, at + 4, at + 4 + len)));
            at += 4 + len;
        }
        Files.write(out.resolve("dubbo_frames.framed"), body);
        JSONObject m = new JSONObject();
        m.put("name", "dubbo_frames");
        m.put("framed", frameCanon);
        m.put("dubbo_read", DubboFrames.read(body));
        manifest.add(m);
        JSONObject root = new JSONObject();
        // Read at run time: JSON.VERSION is a compile-time constant.
        root.put("fastjson2", JSON.class.getField("VERSION").get(null));
        root.put("write_features", Arrays.toString(DUBBO_WRITE));
        root.put("cases", manifest);
        Files.write(out.resolve("manifest.json"), JSON.toJSONBytes(root, JSONWriter.Feature.PrettyFormat));
        System.out.println("wrote " + manifest.size() + " cases to " + out);
    }

    /** For every X.bin in ours: fastjson2 reads it as Dubbo does, and the object it gets writes
     *  (with Dubbo's features) the same bytes as the object read from JAVA_DIR/X.bin. */
    static boolean check(Path javaDir, Path ours) throws Exception {
        boolean ok = true;
        int n = 0;
        try (java.util.stream.Stream<Path> files = Files.list(ours)) {
            for (Path p : (Iterable<Path>) files.sorted()::iterator) {
                String name = p.getFileName().toString();
                if (name.endsWith(".framed")) {
                    n++;
                    try {
                        String mine = DubboFrames.read(Files.readAllBytes(p));
                        String theirs = DubboFrames.read(Files.readAllBytes(javaDir.resolve(name)));
                        if (mine.equals(theirs)) {
                            System.out.println("ok " + name);
                        } else {
                            ok = false;
                            System.out.println("MISMATCH " + name + ": " + mine + " vs java " + theirs);
                        }
                    } catch (Exception x) {
                        ok = false;
                        System.out.println("ERROR " + name + ": " + x);
                    }
                    continue;
                }
                if (!name.endsWith(".bin")) {
                    continue;
                }
                n++;
                try {
                    Object mine = JSONB.parseObject(Files.readAllBytes(p), Object.class, DUBBO_READ);
                    Object theirs = JSONB.parseObject(Files.readAllBytes(javaDir.resolve(name)), Object.class, DUBBO_READ);
                    byte[] a = JSONB.toBytes(mine, DUBBO_WRITE);
                    byte[] b = JSONB.toBytes(theirs, DUBBO_WRITE);
                    if (Arrays.equals(a, b)) {
                        System.out.println("ok " + name);
                    } else {
                        ok = false;
                        System.out.println("MISMATCH " + name + ": " + JSON.toJSONString(WireCanon.of(a))
                                + " vs java " + JSON.toJSONString(WireCanon.of(b)));
                    }
                } catch (Exception x) {
                    ok = false;
                    System.out.println("ERROR " + name + ": " + x);
                }
            }
        }
        System.out.println((ok ? "all ok: " : "FAILED: ") + n + " files");
        return ok && n > 0;
    }

    static String hex(byte[] b, int max) {
        StringBuilder s = new StringBuilder();
        for (int i = 0; i < Math.min(b.length, max); i++) {
            s.append(String.format("%02x", b[i] & 0xff));
        }
        return s.toString();
    }
}
