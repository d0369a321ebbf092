package io.github.hessianrs.peers;

import com.google.monitoring.runtime.instrumentation.AllocationRecorder;
import com.google.monitoring.runtime.instrumentation.Sampler;

import java.io.ByteArrayInputStream;

/**
 * {@code java -javaagent:allocation-instrumenter.jar -cp benchmarks.jar io.github.hessianrs.peers.AllocCount [OPS]}
 *
 * <p>Counts the heap allocations (objects and arrays) of one encode/decode of Mix and User, by
 * bytecode instrumentation (Google's java-allocation-instrumenter). The instrumentation hands every
 * new object to the recorder, so the JIT's escape analysis cannot remove any of them: this is the
 * number of allocations the code performs, an upper bound of what the timed (un-instrumented) runs
 * allocate. JMH's gc.alloc.rate.norm (B/op, from {@code -prof gc}) is the measured figure.
 * Prints {@code dataset<TAB>op<TAB>allocs_per_op<TAB>bytes_per_op}.
 */
public final class AllocCount {
    private static long count;
    private static long bytes;
    private static volatile boolean counting;

    public static void main(String[] args) throws Exception {
        int ops = args.length > 0 ? Integer.parseInt(args[0]) : 10000;
        final Thread self = Thread.currentThread();
        AllocationRecorder.addSampler(new Sampler() {
            @Override
            public void sampleAllocation(int arrayCount, String desc, Object newObj, long size) {
                if (Thread.currentThread() == self && counting) {
                    count++;
                    bytes += size;
                }
            }
        });
        Codec c = new Codec();
        Object mix = Values.mix();
        Object user = Values.user();
        ByteArrayInputStream mixBytes = new ByteArrayInputStream(c.encodeToArray(mix));
        ByteArrayInputStream userBytes = new ByteArrayInputStream(c.encodeToArray(user));
        String[][] cases = {{"mix", "encode"}, {"mix", "decode"}, {"user", "encode"}, {"user", "decode"}};
        for (String[] k : cases) {
            Object v = k[0].equals("mix") ? mix : user;
            ByteArrayInputStream in = k[0].equals("mix") ? mixBytes : userBytes;
            boolean enc = k[1].equals("encode");
            for (int i = 0; i < ops; i++) { // warm: caches of the serializer factory, class loading
                run(c, enc, v, in);
            }
            count = 0;
            bytes = 0;
            counting = true;
            for (int i = 0; i < ops; i++) {
                run(c, enc, v, in);
            }
            counting = false;
            System.out.printf("%s\t%s\t%.1f\t%.0f%n", k[0], k[1], (double) count / ops, (double) bytes / ops);
        }
    }

    private static Object run(Codec c, boolean enc, Object v, ByteArrayInputStream in) throws Exception {
        return enc ? c.encode(v) : c.decode(in);
    }
}
