package io.github.hessianrs.peers;

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

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.util.concurrent.TimeUnit;

/**
 * hessian-lite encode/decode of Mix and User. Decode input = the bytes Java itself wrote
 * (identical to the committed vectors mix_self_ref.bin / pojo_user.bin, see Check).
 * Run via benches/peers/run, or: java -jar target/lite3/benchmarks.jar HessianBench -prof gc
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
public class HessianBench {
    private Codec codec;
    private Mix mix;
    private User user;
    private ByteArrayInputStream mixBytes;
    private ByteArrayInputStream userBytes;

    @Setup(Level.Trial)
    public void setup() throws IOException {
        codec = new Codec();
        mix = Values.mix();
        user = Values.user();
        byte[] m = codec.encodeToArray(mix);
        byte[] u = codec.encodeToArray(user);
        mixBytes = new ByteArrayInputStream(m);
        userBytes = new ByteArrayInputStream(u);
        // the timed operations must really do what they claim
        Values.checkMix(codec.decode(mixBytes));
        Values.checkUser(codec.decode(userBytes));
        if (!java.util.Arrays.equals(m, codec.encodeToArray(mix))) {
            throw new IllegalStateException("second encoding of Mix differs: init() did not reset the output");
        }
    }

    @Benchmark
    public ByteArrayOutputStream encodeMix() throws IOException {
        return codec.encode(mix);
    }

    @Benchmark
    public Object decodeMix() throws IOException {
        return codec.decode(mixBytes);
    }

    @Benchmark
    public ByteArrayOutputStream encodeUser() throws IOException {
        return codec.encode(user);
    }

    @Benchmark
    public Object decodeUser() throws IOException {
        return codec.decode(userBytes);
    }
}
