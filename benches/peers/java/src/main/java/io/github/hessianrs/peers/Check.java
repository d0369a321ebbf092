package io.github.hessianrs.peers;

import java.io.ByteArrayInputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.Arrays;

/**
 * {@code Check [VECTOR_DIR]}: checks that the benchmark's encodings are the committed Java vectors
 * (VECTOR_DIR/mix_self_ref.bin, VECTOR_DIR/pojo_user.bin), that decoding them gives the values
 * back, and prints the hessian-lite version and the encoded sizes.
 */
public final class Check {
    public static void main(String[] args) throws Exception {
        Codec c = new Codec();
        byte[] mix = c.encodeToArray(Values.mix());
        byte[] user = c.encodeToArray(Values.user());
        Values.checkMix(c.decode(new ByteArrayInputStream(mix)));
        Values.checkUser(c.decode(new ByteArrayInputStream(user)));
        String vectors = "";
        if (args.length > 0) {
            Path dir = Paths.get(args[0]);
            same(mix, dir.resolve("mix_self_ref.bin"));
            same(user, dir.resolve("pojo_user.bin"));
            vectors = ", byte-identical with " + dir.resolve("mix_self_ref.bin") + " and pojo_user.bin";
        }
        String lite = manifest("Hessian-Lite-Version");
        System.out.println("ok " + lite + ": mix " + mix.length + " bytes, user " + user.length + " bytes" + vectors);
    }

    private static void same(byte[] ours, Path vector) throws Exception {
        byte[] want = Files.readAllBytes(vector);
        if (!Arrays.equals(ours, want)) {
            throw new IllegalStateException("benchmark encoding differs from " + vector);
        }
    }

    static String manifest(String key) {
        try (java.io.InputStream is = Check.class.getResourceAsStream("/META-INF/MANIFEST.MF")) {
            if (is != null) {
                String v = new java.util.jar.Manifest(is).getMainAttributes().getValue(key);
                if (v != null) {
                    return v;
                }
            }
        } catch (java.io.IOException ignored) {
            // fall through
        }
        return "hessian-lite (unknown version)";
    }
}
