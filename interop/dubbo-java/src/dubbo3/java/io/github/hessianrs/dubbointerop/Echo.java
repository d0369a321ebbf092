package io.github.hessianrs.dubbointerop;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

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

    /** Exports EchoService (no version, no group) with the same protocol config, application and registry. */
    static void export(ProtocolConfig proto, ApplicationConfig app, List<RegistryConfig> registries) {
        ServiceConfig<EchoService> sc = new ServiceConfig<>();
        sc.setApplication(app);
        sc.setRegistries(registries);
        sc.setProtocol(proto);
        sc.setInterface(EchoService.class);
        sc.setRef(new EchoServiceImpl());
        sc.setScope("remote");
        sc.export();
    }

    /** A collecting response observer. */
    static final class Collector implements StreamObserver<StringValue> {
        final LinkedBlockingQueue<String> values = new LinkedBlockingQueue<>();
        final List<String> all = Collections.synchronizedList(new ArrayList<>());
        final CountDownLatch done = new CountDownLatch(1);
        volatile Throwable error;
        volatile boolean completed;

        @Override
        public void onNext(StringValue v) {
            values.add(v.getValue());
            all.add(v.getValue());
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
        ReferenceConfig<EchoService> rc = new ReferenceConfig<>();
        rc.setApplication(app != null ? app : DubboSetup.application("hessianrs-interop-consumer"));
        rc.setInterface(EchoService.class);
        rc.setUrl("tri://" + host + ":" + port + "/" + EchoService.class.getName());
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
        c.check("echo_server_stream", () -> {
            Collector out = new Collector();
            svc.serverStream(sv("abc"), out);
            Consumer.eq(List.of("abc-0", "abc-1", "abc-2"), out.await());
        });
        c.check("echo_server_stream_many", () -> {
            Collector out = new Collector();
            svc.serverStream(sv("many:1000"), out);
            List<String> got = out.await();
            if (got.size() != 1000) throw new AssertionError("expected 1000 messages, got " + got.size());
            for (int i = 0; i < 1000; i++) {
                if (!got.get(i).equals("m-" + i)) {
                    throw new AssertionError("message " + i + " is " + Consumer.show(got.get(i)) + ", expected m-" + i);
                }
            }
        });
        c.check("echo_client_stream", () -> {
            Collector out = new Collector();
            StreamObserver<StringValue> in = svc.clientStream(out);
            in.onNext(sv("a"));
            in.onNext(sv("b"));
            in.onNext(sv("c"));
            in.onCompleted();
            Consumer.eq(List.of("a,b,c"), out.await());
        });
        c.check("echo_bidi", () -> {
            Collector out = new Collector();
            StreamObserver<StringValue> in = svc.bidi(out);
            for (String s : new String[] {"x", "y", "z"}) {
                in.onNext(sv(s));
                Consumer.eq("echo: " + s, out.next()); // interleaved: the answer before the next request
            }
            in.onCompleted();
            Consumer.eq(List.of("echo: x", "echo: y", "echo: z"), out.await());
        });
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
    }

    /** The first TriRpcStatus in e's cause chain (StatusRpcException), or null. */
    static TriRpcStatus statusOf(Throwable e) {
        for (Throwable t = e; t != null; t = t.getCause() == t ? null : t.getCause()) {
            if (t instanceof StatusRpcException) return ((StatusRpcException) t).getStatus();
        }
        return null;
    }
}
