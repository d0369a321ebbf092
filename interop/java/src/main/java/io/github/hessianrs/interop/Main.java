package io.github.hessianrs.interop;

import com.alibaba.com.caucho.hessian.io.Hessian2Input;
import com.alibaba.com.caucho.hessian.io.Hessian2Output;
import com.alibaba.com.caucho.hessian.io.SerializerFactory;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.File;
import java.io.FileDescriptor;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStreamWriter;
import java.io.PrintStream;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Properties;

/**
 * Hessian2 interop tool built against one generation of hessian-lite (see README.md).
 *
 * <pre>
 *   gen OUTDIR                     write the test vectors + manifest.json
 *   decode FILE                    canonical JSON of each value hessian-lite decodes from FILE
 *   compare-dir JAVA_DIR OURS_DIR  decode both X.bin files for every X.bin in OURS_DIR and compare
 *   reencode IN OUT                decode IN with hessian-lite and write the objects again to OUT
 *   wire FILE                      canonical JSON parsed from the bytes by an independent parser
 *   verify DIR                     check DIR/manifest.json against the .bin files (wire parse + decode)
 *   version                        print the hessian-lite version on the classpath
 * </pre>
 */
public final class Main {
    private static final PrintStream OUT = new PrintStream(new FileOutputStream(FileDescriptor.out), true,
            StandardCharsets.UTF_8);
    private static final PrintStream ERR = new PrintStream(new FileOutputStream(FileDescriptor.err), true,
            StandardCharsets.UTF_8);

    private Main() {
    }

    public static void main(String[] args) {
        int rc;
        try {
            rc = run(args);
        } catch (Throwable t) {
            ERR.println("error: " + t);
            t.printStackTrace(ERR);
            rc = 1;
        }
        OUT.flush();
        ERR.flush();
        System.exit(rc);
    }

    private static int usage() {
        ERR.println("usage: java -jar hessian-interop.jar (gen OUTDIR | decode FILE | compare-dir JAVA_DIR OURS_DIR"
                + " | reencode IN OUT | wire FILE | verify DIR | version)");
        return 2;
    }

    static int run(String[] args) throws Exception {
        if (args.length == 0) {
            return usage();
        }
        switch (args[0]) {
            case "gen":
                return args.length == 2 ? gen(new File(args[1])) : usage();
            case "decode":
                return args.length == 2 ? decodeCmd(new File(args[1])) : usage();
            case "compare-dir":
                return args.length == 3 ? compareDir(new File(args[1]), new File(args[2])) : usage();
            case "reencode":
                return args.length == 3 ? reencode(new File(args[1]), new File(args[2])) : usage();
            case "wire":
                return args.length == 2 ? wireCmd(new File(args[1])) : usage();
            case "verify":
                return args.length == 2 ? verify(new File(args[1])) : usage();
            case "version":
                OUT.println(hessianVersion());
                return 0;
            default:
                return usage();
        }
    }

    static String hessianVersion() {
        for (String p : new String[] {"META-INF/maven/org.apache.dubbo/hessian-lite/pom.properties",
            "META-INF/maven/com.alibaba/hessian-lite/pom.properties"}) {
            try (InputStream in = Main.class.getClassLoader().getResourceAsStream(p)) {
                if (in != null) {
                    Properties props = new Properties();
                    props.load(in);
                    return props.getProperty("groupId") + ":hessian-lite:" + props.getProperty("version");
                }
            } catch (IOException e) {
                // fall through
            }
        }
        return Canon.LITE4 ? "hessian-lite 4.x (unknown version)" : "hessian-lite 3.x (unknown version)";
    }

    // ------------------------------------------------------------------ encode / decode

    /** Writes the values with ONE Hessian2Output (class defs, type refs and refs persist), as Dubbo does. */
    static byte[] encode(Object[] values) throws IOException {
        ByteArrayOutputStream bos = new ByteArrayOutputStream();
        Hessian2Output out = new Hessian2Output(bos);
        out.setSerializerFactory(new SerializerFactory());
        for (Object v : values) {
            out.writeObject(v);
        }
        out.flush();
        return bos.toByteArray();
    }

    /** Reads every top-level value until EOF with one Hessian2Input. */
    static List<Object> decode(byte[] data) throws IOException {
        Hessian2Input in = new Hessian2Input(new ByteArrayInputStream(data));
        in.setSerializerFactory(new SerializerFactory());
        List<Object> values = new ArrayList<>();
        while (!in.isEnd()) {
            values.add(in.readObject());
        }
        int trailing = in.read();
        if (trailing >= 0) {
            throw new IOException(String.format("unexpected byte 0x%02x after value %d", trailing, values.size()));
        }
        return values;
    }

    static List<String> canon(List<Object> values) throws Exception {
        Canon c = new Canon(new SerializerFactory());
        List<String> out = new ArrayList<>();
        for (Object v : values) {
            out.add(c.value(v));
        }
        return out;
    }

    static String jsonArray(List<String> items) {
        StringBuilder sb = new StringBuilder();
        sb.append('[');
        for (int i = 0; i < items.size(); i++) {
            if (i > 0) {
                sb.append(',');
            }
            sb.append(items.get(i));
        }
        return sb.append(']').toString();
    }

    static int count(String s, String sub) {
        int n = 0;
        for (int i = s.indexOf(sub); i >= 0; i = s.indexOf(sub, i + sub.length())) {
            n++;
        }
        return n;
    }

    static String abbreviate(String s) {
        return s.length() <= 400 ? s : s.substring(0, 400) + "...(" + s.length() + " chars)";
    }

    // ------------------------------------------------------------------ gen

    static int gen(File outDir) throws Exception {
        if (!outDir.isDirectory() && !outDir.mkdirs()) {
            throw new IOException("cannot create " + outDir);
        }
        File[] old = outDir.listFiles((dir, name) -> name.endsWith(".bin") || name.equals("manifest.json"));
        if (old != null) {
            for (File f : old) {
                Files.delete(f.toPath());
            }
        }
        List<Cases.Case> cases = Cases.all();
        StringBuilder manifest = new StringBuilder("[\n");
        int failures = 0;
        int decodeDiffs = 0;
        int structureChecks = 0;
        int skipped = 0;
        int writtenCases = 0;
        boolean first = true;
        for (int ci = 0; ci < cases.size(); ci++) {
            Cases.Case c = cases.get(ci);
            byte[] data = encode(c.values);
            if (Cases.MAY_FAIL_DECODE.contains(c.name)) {
                try {
                    decode(data);
                } catch (Exception e) {
                    ERR.println("SKIP " + c.name + ": hessian-lite cannot read back what it wrote ("
                            + describe(e) + "); wire: " + abbreviate(jsonArray(WireParser.parseAll(data))));
                    skipped++;
                    continue;
                }
            }
            Files.write(new File(outDir, c.name + ".bin").toPath(), data);
            writtenCases++;

            // canonical JSON of what was written, from the objects
            Canon canon = new Canon(new SerializerFactory());
            List<String> written = new ArrayList<>();
            for (Object v : c.values) {
                written.add(canon.value(v));
            }

            // self-check 1: an independent byte-level parse must give the same description
            WireParser wp = new WireParser(data);
            List<String> wire = new ArrayList<>();
            try {
                while (!wp.atEnd()) {
                    StringBuilder sb = new StringBuilder();
                    wp.value(sb);
                    wire.add(sb.toString());
                }
                if (!wire.equals(written)) {
                    ERR.println("FAIL " + c.name + ": object model vs wire\n  objects: "
                            + abbreviate(jsonArray(written)) + "\n  wire:    " + abbreviate(jsonArray(wire)));
                    failures++;
                }
                if (wp.refCount() != canon.refCount()) {
                    ERR.println("FAIL " + c.name + ": ref slots objects=" + canon.refCount() + " wire=" + wp.refCount());
                    failures++;
                }
                // structural: the JSON must have one list/map/object per ref slot and one "ref" per 'Q'
                String all = jsonArray(written);
                int containers = count(all, "{\"list\":") + count(all, "{\"map\":") + count(all, "{\"object\":");
                if (containers != wp.refCount() || count(all, "{\"ref\":") != wp.refUses) {
                    ERR.println("FAIL " + c.name + ": structure: containers=" + containers + " slots=" + wp.refCount()
                            + " refs=" + count(all, "{\"ref\":") + " Q=" + wp.refUses);
                    failures++;
                }
                int[] expect = Cases.STRUCTURE.get(c.name);
                if (expect != null) {
                    int[] got = {wp.classDefCount, wp.classRefUses, wp.typeRefUses, wp.refUses, wp.refCount()};
                    if (!Arrays.equals(expect, got)) {
                        ERR.println("FAIL " + c.name + ": structure {classDefs, objects, typeRefs, refs, slots} expected "
                                + Arrays.toString(expect) + " got " + Arrays.toString(got));
                        failures++;
                    }
                    structureChecks++;
                }
            } catch (RuntimeException e) {
                ERR.println("FAIL " + c.name + ": wire parse: " + e);
                failures++;
            }

            // self-check 2: hessian-lite must decode it; compare the decoded objects' description
            List<String> decoded = null;
            String note = c.note;
            try {
                decoded = canon(decode(data));
            } catch (Exception e) {
                ERR.println("FAIL " + c.name + ": hessian-lite cannot decode its own output: " + e);
                e.printStackTrace(ERR);
                failures++;
            }
            boolean differs = decoded != null && !decoded.equals(written);
            if (differs) {
                decodeDiffs++;
                String d = "decoding with hessian-lite gives a different value (see \"decoded\")";
                String why = Cases.decodeNote(c.name, Canon.LITE4);
                if (why != null) {
                    d += ": " + why;
                }
                note = note == null ? d : note + "; " + d;
                ERR.println("NOTE " + c.name + ": decoded differs\n  written: " + abbreviate(jsonArray(written))
                        + "\n  decoded: " + abbreviate(jsonArray(decoded)));
            }

            if (!first) {
                manifest.append(",\n");
            }
            first = false;
            manifest.append("{\"name\":");
            Json.str(manifest, c.name);
            manifest.append(",\"file\":");
            Json.str(manifest, c.name + ".bin");
            manifest.append(",\"values\":").append(jsonArray(written));
            if (differs) {
                manifest.append(",\"decoded\":").append(jsonArray(decoded));
            }
            if (note != null) {
                manifest.append(",\"note\":");
                Json.str(manifest, note);
            }
            manifest.append('}');
        }
        manifest.append("\n]\n");
        try (Writer w = new OutputStreamWriter(new FileOutputStream(new File(outDir, "manifest.json")),
                StandardCharsets.UTF_8)) {
            w.write(manifest.toString());
        }
        OUT.println("gen: " + hessianVersion() + ": wrote " + writtenCases + " cases to " + outDir + " ("
                + skipped + " skipped, " + decodeDiffs + " decode differences noted, " + structureChecks + " explicit structure checks, "
                + failures + " failures)");
        return failures == 0 ? 0 : 1;
    }

    // ------------------------------------------------------------------ decode / wire

    static int decodeCmd(File f) throws Exception {
        List<String> values;
        try {
            values = canon(decode(Files.readAllBytes(f.toPath())));
        } catch (Exception e) {
            ERR.println("decode " + f + ": " + e);
            return 1;
        }
        for (String v : values) {
            OUT.println(v);
        }
        return 0;
    }

    static int wireCmd(File f) throws Exception {
        List<String> values;
        try {
            values = WireParser.parseAll(Files.readAllBytes(f.toPath()));
        } catch (Exception e) {
            ERR.println("wire " + f + ": " + e);
            return 1;
        }
        for (String v : values) {
            OUT.println(v);
        }
        return 0;
    }

    // ------------------------------------------------------------------ compare-dir

    static int compareDir(File javaDir, File oursDir) throws Exception {
        File[] files = oursDir.listFiles((dir, name) -> name.endsWith(".bin"));
        if (files == null) {
            ERR.println("not a directory: " + oursDir);
            return 1;
        }
        Arrays.sort(files);
        int bad = 0;
        for (File ours : files) {
            String name = ours.getName().substring(0, ours.getName().length() - 4);
            File theirs = new File(javaDir, ours.getName());
            String oursJson;
            String javaJson;
            try {
                oursJson = jsonArray(canon(decode(Files.readAllBytes(ours.toPath()))));
            } catch (Exception e) {
                OUT.println("ERROR " + name + ": " + describe(e));
                bad++;
                continue;
            }
            try {
                javaJson = jsonArray(canon(decode(Files.readAllBytes(theirs.toPath()))));
            } catch (Exception e) {
                OUT.println("ERROR " + name + ": (java side " + theirs + ") " + describe(e));
                bad++;
                continue;
            }
            if (oursJson.equals(javaJson)) {
                OUT.println("ok " + name);
            } else {
                OUT.println("MISMATCH " + name + ": " + javaJson + " vs " + oursJson);
                bad++;
            }
        }
        OUT.println("compare-dir: " + (files.length - bad) + " ok, " + bad + " bad");
        return bad == 0 ? 0 : 1;
    }

    private static String describe(Throwable e) {
        String s = e.toString();
        Throwable c = e.getCause();
        while (c != null && c != e) {
            s += " / caused by " + c;
            e = c;
            c = c.getCause();
        }
        return s.replace('\n', ' ');
    }

    // ------------------------------------------------------------------ reencode

    static int reencode(File in, File out) throws Exception {
        List<Object> values;
        try {
            values = decode(Files.readAllBytes(in.toPath()));
        } catch (Exception e) {
            ERR.println("decode " + in + ": " + e);
            return 1;
        }
        Files.write(out.toPath(), encode(values.toArray()));
        return 0;
    }

    // ------------------------------------------------------------------ verify

    /** Checks a generated directory: each .bin parses (wire) and decodes to the manifest's values. */
    static int verify(File dir) throws Exception {
        String manifest = new String(Files.readAllBytes(new File(dir, "manifest.json").toPath()),
                StandardCharsets.UTF_8);
        // one entry per line: {"name":"...","file":"...","values":[...](,"decoded":[...])?(,"note":...)?}
        int bad = 0;
        int n = 0;
        for (String line : manifest.split("\n")) {
            if (!line.startsWith("{\"name\":")) {
                continue;
            }
            n++;
            if (line.endsWith(",")) {
                line = line.substring(0, line.length() - 1);
            }
            int fi = line.indexOf(",\"file\":\"");
            String file = line.substring(fi + 9, line.indexOf('"', fi + 9));
            int vi = line.indexOf(",\"values\":", fi) + 10;
            byte[] data = Files.readAllBytes(new File(dir, file).toPath());
            String wire = jsonArray(WireParser.parseAll(data));
            if (!line.startsWith(wire, vi)) {
                OUT.println("BAD " + file + ": manifest values are not the wire description " + abbreviate(wire));
                bad++;
                continue;
            }
            String expectDecoded = wire;
            int di = vi + wire.length();
            if (line.startsWith(",\"decoded\":", di)) {
                expectDecoded = null;
                String rest = line.substring(di + 11);
                String dec = jsonArray(canon(decode(data)));
                if (!rest.startsWith(dec)) {
                    OUT.println("BAD " + file + ": decoded values differ from manifest \"decoded\": " + abbreviate(dec));
                    bad++;
                }
            }
            if (expectDecoded != null) {
                String dec = jsonArray(canon(decode(data)));
                if (!dec.equals(expectDecoded)) {
                    OUT.println("BAD " + file + ": decoded " + abbreviate(dec));
                    bad++;
                }
            }
        }
        OUT.println("verify: " + n + " cases, " + bad + " bad");
        return bad == 0 && n > 0 ? 0 : 1;
    }
}
