package io.github.hessianrs.dubbointerop;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;

import com.google.protobuf.StringValue;

import org.apache.dubbo.common.stream.StreamObserver;
import org.apache.dubbo.config.ApplicationConfig;
import org.apache.dubbo.config.ProtocolConfig;
import org.apache.dubbo.config.ReferenceConfig;
import org.apache.dubbo.config.RegistryConfig;
import org.apache.dubbo.config.ServiceConfig;
import org.apache.dubbo.rpc.RpcContext;
import org.apache.dubbo.rpc.RpcException;
import org.apache.dubbo.rpc.StatusRpcException;
import org.apache.dubbo.rpc.TriRpcStatus;

import io.github.hessianrs.demo.EchoService;
import io.github.hessianrs.demo.EchoServiceImpl;
import io.github.hessianrs.demo.StreamService;
import io.github.hessianrs.demo.StreamServiceImpl;

/**
 * Dubbo 3 only (src/dubbo3, called by name from {@link DubboSetup} and {@link Consumer}): the
 * Triple IDL-style {@link EchoService} (protobuf {@code StringValue} messages, no wrapper), exported
 * next to DemoService by {@code provider --protocol tri} / {@code --ext-protocol tri}, and the
 * consumer's {@code echo_*} checks.
 */
final class Echo {
    static final int DEADLINE_TIMEOUT_MS = 500;
    static final int DEADLINE_SLEEP_MS = 3000;
    /** How long a streaming check waits for its stream to end. */
    static final long STREAM_WAIT_MS = 10_000;

    private Echo() {
    }

    static StringValue sv(String s) {
        return StringValue.newBuilder().setValue(s).build();
    }

    /**
     * Exports EchoService and StreamService (no version, no group) with the same protocol config,
     * application and registry.
     */
    static void export(ProtocolConfig proto, ApplicationConfig app, List<RegistryConfig> registries) {
        exportOne(EchoService.class, new EchoServiceImpl(), proto, app, registries);
        exportOne(StreamService.class, new StreamServiceImpl(), proto, app, registries);
    }

    private static <T> void exportOne(Class<T> type, T impl, ProtocolConfig proto, ApplicationConfig app,
            List<RegistryConfig> registries) {
        ServiceConfig<T> sc = new ServiceConfig<>();
        sc.setApplication(app);
        sc.setRegistries(registries);
        sc.setProtocol(proto);
        sc.setInterface(type);
        sc.setRef(impl);
        sc.setScope("remote");
        sc.export();
    }

    /** The three streams of {@link EchoService} and {@link StreamService}, over message type T. */
    interface Streams<T> {
        void serverStream(T v, StreamObserver<T> out);

        StreamObserver<T> clientStream(StreamObserver<T> out);

        StreamObserver<T> bidi(StreamObserver<T> out);
    }

    /** A collecting response observer of messages that carry a string. */
    static final class Collector<T> implements StreamObserver<T> {
        final Function<T, String> unwrap;
        final LinkedBlockingQueue<String> values = new LinkedBlockingQueue<>();
        final List<String> all = Collections.synchronizedList(new ArrayList<>());
        final CountDownLatch done = new CountDownLatch(1);
        volatile Throwable error;
        volatile boolean completed;

        Collector(Function<T, String> unwrap) {
            this.unwrap = unwrap;
        }

        @Override
        public void onNext(T v) {
            String s = unwrap.apply(v);
            values.add(s);
            all.add(s);
        }

        @Override
        public void onError(Throwable t) {
            error = t;
            done.countDown();
        }

        @Override
        public void onCompleted() {
            completed = true;
            done.countDown();
        }

        /** Waits for the end of the stream; it must end with onCompleted. */
        List<String> await() throws InterruptedException {
            if (!done.await(STREAM_WAIT_MS, TimeUnit.MILLISECONDS)) {
                throw new AssertionError("stream not ended within " + STREAM_WAIT_MS + " ms; got " + Consumer.show(all));
            }
            if (error != null) throw new AssertionError("stream ended with onError: " + Consumer.describe(error));
            synchronized (all) {
                return new ArrayList<>(all);
            }
        }

        /** The next response within the stream wait. */
        String next() throws InterruptedException {
            String v = values.poll(STREAM_WAIT_MS, TimeUnit.MILLISECONDS);
            if (v == null) {
                throw new AssertionError("no response within " + STREAM_WAIT_MS + " ms"
                        + (error != null ? "; onError " + Consumer.describe(error) : completed ? "; completed" : ""));
            }
            return v;
        }
    }

    /** The reference {@code tri://host:port/io.github.hessianrs.demo.EchoService} (no version). */
    static ReferenceConfig<EchoService> reference(String host, int port, int timeoutMs, ApplicationConfig app) {
        return referenceOf(EchoService.class, host, port, timeoutMs, app);
    }

    /** The reference {@code tri://host:port/<type>} (no version). */
    private static <T> ReferenceConfig<T> referenceOf(Class<T> type, String host, int port, int timeoutMs,
            ApplicationConfig app) {
        ReferenceConfig<T> rc = new ReferenceConfig<>();
        rc.setApplication(app != null ? app : DubboSetup.application("hessianrs-interop-consumer"));
        rc.setInterface(type);
        rc.setUrl("tri://" + host + ":" + port + "/" + type.getName());
        rc.setTimeout(timeoutMs);
        rc.setRetries(0);
        rc.setClient(LoopbackTransporter.NAME);
        rc.setScope("remote");
        rc.setCheck(true); // nothing listening: get() fails -> one FAIL echo_connect instead of 8 failures
        return rc;
    }

    /**
     * The echo checks through {@code ref} (a {@link #reference}); called by name from {@link Consumer}.
     */
    static void runChecks(Consumer c, ReferenceConfig<EchoService> rc) {
        EchoService svc;
        try {
            svc = rc.get();
        } catch (Throwable t) {
            c.check("echo_connect", () -> {
                throw t instanceof Exception ? (Exception) t : new RuntimeException(t);
            });
            return;
        }
        c.check("echo_unary", () -> {
            Consumer.eq("echo: hello", svc.unary(sv("hello")).getValue());
            Consumer.eq("echo: " + Consumer.UNICODE, svc.unary(sv(Consumer.UNICODE)).getValue());
            Consumer.eq("echo: ", svc.unary(sv("")).getValue());
        });
        streamChecks(c, "echo_", new Streams<StringValue>() {
            @Override
            public void serverStream(StringValue v, StreamObserver<StringValue> out) {
                svc.serverStream(v, out);
            }

            @Override
            public StreamObserver<StringValue> clientStream(StreamObserver<StringValue> out) {
                return svc.clientStream(out);
            }

            @Override
            public StreamObserver<StringValue> bidi(StreamObserver<StringValue> out) {
                return svc.bidi(out);
            }
        }, Echo::sv, StringValue::getValue);
        c.check("echo_error", () -> {
            StringValue r;
            try {
                r = svc.unary(sv("fail"));
            } catch (Throwable e) {
                Consumer.println("# echo_error received " + Consumer.describe(e));
                TriRpcStatus st = statusOf(e);
                if (st != null) {
                    Consumer.println("# echo_error status " + st.code + " description " + Consumer.show(st.description));
                    Consumer.eq(TriRpcStatus.Code.INVALID_ARGUMENT, st.code);
                    // a 3.3.6 provider sends grpc-message "INVALID_ARGUMENT : fail requested" (see README)
                    if (st.description == null || !st.description.contains("fail requested")) {
                        throw new AssertionError("status description " + Consumer.show(st.description)
                                + " lacks \"fail requested\"");
                    }
                } else if (!String.valueOf(e.getMessage()).contains("fail requested")) {
                    throw new AssertionError("no status and no 'fail requested' in " + Consumer.describe(e));
                }
                return;
            }
            throw new AssertionError("no exception, got " + Consumer.show(r.getValue()));
        });
        c.check("echo_deadline", () -> {
            long t0 = System.nanoTime();
            try {
                // a per-call timeout: RpcUtils.getTimeout takes the client attachment "timeout" first
                RpcContext.getClientAttachment().setAttachment("timeout", String.valueOf(DEADLINE_TIMEOUT_MS));
                StringValue r = svc.unary(sv("sleep:" + DEADLINE_SLEEP_MS));
                throw new AssertionError("no timeout, got " + Consumer.show(r.getValue()));
            } catch (RpcException e) {
                long ms = (System.nanoTime() - t0) / 1_000_000;
                Consumer.println("# echo_deadline received after " + ms + " ms: " + Consumer.describe(e));
                TriRpcStatus st = statusOf(e);
                boolean timeout = e.isTimeout() || (st != null && st.code == TriRpcStatus.Code.DEADLINE_EXCEEDED);
                if (!timeout) throw new AssertionError("not a timeout: " + Consumer.describe(e));
                if (ms < DEADLINE_TIMEOUT_MS - 100 || ms > DEADLINE_SLEEP_MS - 100) {
                    throw new AssertionError("timeout after " + ms + " ms, expected about " + DEADLINE_TIMEOUT_MS);
                }
            } finally {
                RpcContext.getClientAttachment().removeAttachment("timeout");
            }
        });
        c.check("echo_after_deadline", () -> Consumer.eq("echo: after", svc.unary(sv("after")).getValue()));
        wrappedChecks(c, rc);
    }

    /**
     * The wrapped_* checks: StreamService (interface style, String messages, wrapped) at the same
     * address and with the same timeout and application as {@code echo}.
     */
    private static void wrappedChecks(Consumer c, ReferenceConfig<EchoService> echo) {
        org.apache.dubbo.common.URL url = org.apache.dubbo.common.URL.valueOf(echo.getUrl());
        ReferenceConfig<StreamService> rc = referenceOf(StreamService.class, url.getHost(), url.getPort(),
                echo.getTimeout(), echo.getApplication());
        StreamService svc;
        try {
            svc = rc.get();
        } catch (Throwable t) {
            c.check("wrapped_connect", () -> {
                throw t instanceof Exception ? (Exception) t : new RuntimeException(t);
            });
            return;
        }
        streamChecks(c, "wrapped_", new Streams<String>() {
            @Override
            public void serverStream(String v, StreamObserver<String> out) {
                svc.serverStream(v, out);
            }

            @Override
            public StreamObserver<String> clientStream(StreamObserver<String> out) {
                return svc.clientStream(out);
            }

            @Override
            public StreamObserver<String> bidi(StreamObserver<String> out) {
                return svc.bidi(out);
            }
        }, Function.identity(), Function.identity());
        try {
            rc.destroy();
        } catch (Throwable t) {
            // ignore
        }
    }

    /** The stream checks, named {@code prefix} + server_stream, server_stream_many, client_stream, bidi. */
    private static <T> void streamChecks(Consumer c, String prefix, Streams<T> svc, Function<String, T> wrap,
            Function<T, String> unwrap) {
        c.check(prefix + "server_stream", () -> {
            Collector<T> out = new Collector<>(unwrap);
            svc.serverStream(wrap.apply("abc"), out);
            Consumer.eq(List.of("abc-0", "abc-1", "abc-2"), out.await());
        });
        c.check(prefix + "server_stream_many", () -> {
            Collector<T> out = new Collector<>(unwrap);
            svc.serverStream(wrap.apply("many:1000"), out);
            List<String> got = out.await();
            if (got.size() != 1000) throw new AssertionError("expected 1000 messages, got " + got.size());
            for (int i = 0; i < 1000; i++) {
                if (!got.get(i).equals("m-" + i)) {
                    throw new AssertionError("message " + i + " is " + Consumer.show(got.get(i)) + ", expected m-" + i);
                }
            }
        });
        c.check(prefix + "client_stream", () -> {
            Collector<T> out = new Collector<>(unwrap);
            StreamObserver<T> in = svc.clientStream(out);
            in.onNext(wrap.apply("a"));
            in.onNext(wrap.apply("b"));
            in.onNext(wrap.apply("c"));
            in.onCompleted();
            Consumer.eq(List.of("a,b,c"), out.await());
        });
        c.check(prefix + "bidi", () -> {
            Collector<T> out = new Collector<>(unwrap);
            StreamObserver<T> in = svc.bidi(out);
            for (String s : new String[] {"x", "y", "z"}) {
                in.onNext(wrap.apply(s));
                Consumer.eq("echo: " + s, out.next()); // interleaved: the answer before the next request
            }
            in.onCompleted();
            Consumer.eq(List.of("echo: x", "echo: y", "echo: z"), out.await());
        });
    }

    /** The first TriRpcStatus in e's cause chain (StatusRpcException), or null. */
    static TriRpcStatus statusOf(Throwable e) {
        for (Throwable t = e; t != null; t = t.getCause() == t ? null : t.getCause()) {
            if (t instanceof StatusRpcException) return ((StatusRpcException) t).getStatus();
        }
        return null;
    }
}
