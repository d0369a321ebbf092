package io.github.hessianrs.peers;

import com.alibaba.fastjson2.JSON;
import com.alibaba.fastjson2.JSONB;
import com.alibaba.fastjson2.JSONReader;
import com.alibaba.fastjson2.JSONWriter;
import io.github.hessianrs.interop.model.Mix;
import io.github.hessianrs.interop.model.User;

import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;

import java.util.Arrays;
import java.util.concurrent.TimeUnit;

/**
 * fastjson2 JSONB encode/decode of Mix and User, as Dubbo's FastJson2ObjectOutput / Input call it
 * (the same writer and reader features; Dubbo's class allow-list replaced by SupportAutoType).
 * Encode is JSONB.toBytes (a new byte[] per message, as Dubbo); decode is JSONB.parseObject of
 * Java's own bytes into the class. The bytes equal user.bin and mix_self_ref.bin of the vectors
 * directory -Dfastjson2.vectors names (fastjson2/tests/vectors for 2.0.52, vectors-2.0.56 for
 * 2.0.56), checked by setup, as is the library's version against -Dfastjson2.expect if given
 * (so that a jar is never measured against the other version's vectors).
 * Run: java -jar target/lite3/benchmarks.jar Fastjson2Bench (2.0.52), or
 * target/fastjson2-2.0.56/benchmarks.jar (mvn -P fastjson2-2.0.56 package).
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
public class Fastjson2Bench {
    static final JSONWriter.Feature[] WRITE = {
        JSONWriter.Feature.WriteClassName,
        JSONWriter.Feature.FieldBased,
        JSONWriter.Feature.ErrorOnNoneSerializable,
        JSONWriter.Feature.ReferenceDetection,
        JSONWriter.Feature.WriteNulls,
        JSONWriter.Feature.NotWriteDefaultValue,
        JSONWriter.Feature.NotWriteHashMapArrayListClassName,
        JSONWriter.Feature.WriteNameAsSymbol,
    };
    static final JSONReader.Feature[] READ = {
        JSONReader.Feature.UseDefaultConstructorAsPossible,
        JSONReader.Feature.ErrorOnNoneSerializable,
        JSONReader.Feature.IgnoreAutoTypeNotMatch,
        JSONReader.Feature.UseNativeObject,
        JSONReader.Feature.FieldBased,
        JSONReader.Feature.SupportAutoType,
    };

    private Mix mix;
    private User user;
    private byte[] mixBytes;
    private byte[] userBytes;

    @Setup(Level.Trial)
    public void setup() {
        mix = Values.mix();
        user = Values.user();
        mixBytes = JSONB.toBytes(mix, WRITE);
        userBytes = JSONB.toBytes(user, WRITE);
        String expect = System.getProperty("fastjson2.expect");
        require(expect == null || expect.equals(JSON.VERSION),
                "fastjson2 " + JSON.VERSION + " on the classpath, " + expect + " expected");
        String vectors = System.getProperty("fastjson2.vectors");
        if (vectors != null) {
            require(Arrays.equals(mixBytes, read(vectors + "/mix_self_ref.bin")), "Mix bytes differ from mix_self_ref.bin");
            require(Arrays.equals(userBytes, read(vectors + "/user.bin")), "User bytes differ from user.bin");
        }
        Mix m = decodeMix();
        require(m.D.get("m") == m && m.A == 97 && "world".equals(m.CC) && Arrays.equals(m.CD, mix.CD)
                && Arrays.equals((double[]) m.D.get("floats"), mix.CD), "decoded Mix");
        User u = decodeUser();
        require(u.id == 1 && "Alice".equals(u.name) && u.created.equals(user.created), "decoded User");
    }

    private static byte[] read(String path) {
        try {
            return java.nio.file.Files.readAllBytes(java.nio.file.Paths.get(path));
        } catch (java.io.IOException e) {
            throw new IllegalStateException(e);
        }
    }

    private static void require(boolean ok, String what) {
        if (!ok) {
            throw new IllegalStateException(what);
        }
    }

    @Benchmark
    public byte[] encodeMix() {
        return JSONB.toBytes(mix, WRITE);
    }

    @Benchmark
    public Mix decodeMix() {
        return JSONB.parseObject(mixBytes, Mix.class, READ);
    }

    @Benchmark
    public byte[] encodeUser() {
        return JSONB.toBytes(user, WRITE);
    }

    @Benchmark
    public User decodeUser() {
        return JSONB.parseObject(userBytes, User.class, READ);
    }
}
