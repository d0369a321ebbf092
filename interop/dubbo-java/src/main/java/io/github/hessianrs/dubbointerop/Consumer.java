package io.github.hessianrs.dubbointerop;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.Date;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import org.apache.dubbo.config.ReferenceConfig;
import org.apache.dubbo.rpc.RpcException;

import io.github.hessianrs.demo.DemoService;
import io.github.hessianrs.demo.DemoServiceImpl;
import io.github.hessianrs.demo.User;

/**
 * {@code consumer HOST:PORT|zookeeper://HOST:PORT [--iterations N] [--timeout MS] [--concurrency N] [--group G]
 * [--attach K=V]... [--expect-attachment K=V]... [--expect-reply-attachment K=V]... [--load CALLS [--payload BYTES] [--warmup CALLS]] [--connections N] [--only echo|demo]}: calls every method of DemoService through a direct URL (or,
 * given {@code zookeeper://}, through that registry only: the providers it lists) and
 * checks each answer strictly ({@code --group}: the reference's Dubbo group; {@code --attach}:
 * attachments on every call; {@code --expect-attachment}: a check that the provider saw attachment K
 * with value V, through {@code DemoService.attachment}, which only the Java provider serves;
 * {@code --expect-reply-attachment}: a check that the answer of {@code DemoService.replyAttachment(K, V)}
 * brought the response attachment K=V back (the caller's response context); {@code --load}: instead of the checks, CALLS sayHello calls over
 * {@code --concurrency} threads, see {@link #load}; {@code --connections}: that many connections to the
 * provider instead of Dubbo's one shared connection, the reference's {@code connections}).
 * With a {@code tri://} target (Dubbo 3) the {@code echo_*} checks of the IDL-style EchoService
 * (src/dubbo3, {@code Echo}) follow the DemoService checks; {@code --only echo} runs only those (no
 * DemoService reference: for a server that serves only EchoService), {@code --only demo} only the others.
 * {@code --only orders} runs only the OrderService checks ({@link Orders}: a DTO of java.time,
 * BigDecimal, UUID and an enum), for a server that serves OrderService, over the dubbo protocol or,
 * with a {@code tri://} target, over Triple (interface style).
 *
 * <p>Output (stdout), one line per check: {@code ok <name>} or {@code FAIL <name>: <details>};
 * informational lines start with {@code # }; the last line is {@code <n> passed, <m> failed}.
 * Exit status 0 only if every check passed (1 otherwise, 3 on a non-loopback attempt).
 */
final class Consumer {
    static final int SLOW_TIMEOUT_MS = 500;
    static final int SLOW_SLEEP_MS = 3000;

    private int passed;
    private int failed;

    private Consumer() {
    }

    interface Body {
        void run() throws Exception;
    }

    static String oneLine(Object o) {
        return String.valueOf(o).replace("\r", "\\r").replace("\n", "\\n");
    }

    static String describe(Throwable t) {
        StringBuilder sb = new StringBuilder();
        sb.append(t.getClass().getName()).append(": ").append(t.getMessage());
        if (t instanceof RpcException) {
            sb.append(" [RpcException code ").append(((RpcException) t).getCode()).append(']');
        }
        Throwable c = t.getCause();
        int depth = 0;
        while (c != null && depth++ < 4) {
            sb.append(" <- caused by ").append(c.getClass().getName()).append(": ").append(c.getMessage());
            c = c.getCause();
        }
        return oneLine(sb);
    }

    static void eq(Object expected, Object actual) {
        if (!Objects.equals(expected, actual)) {
            throw new AssertionError("expected " + show(expected) + ", got " + show(actual));
        }
        if (expected != null && actual != null && expected.getClass() != actual.getClass()
                && !(expected instanceof Map && actual instanceof Map)
                && !(expected instanceof List && actual instanceof List)) {
            throw new AssertionError("expected a " + expected.getClass().getName() + ", got a "
                    + actual.getClass().getName() + " " + show(actual));
        }
    }

    static String show(Object o) {
        if (o == null) return "null";
        String s = o instanceof String ? "\"" + o + "\"" : o + " (" + o.getClass().getName() + ")";
        if (s.length() > 300) s = s.substring(0, 300) + "...(" + s.length() + " chars)";
        return s;
    }

    void check(String name, Body body) {
        try {
            body.run();
            passed++;
            println("ok " + name);
        } catch (Throwable t) {
            failed++;
            String d = t instanceof AssertionError ? t.getMessage() : describe(t);
            println("FAIL " + name + ": " + oneLine(d));
        }
    }

    static synchronized void println(String s) {
        if (s.startsWith("# ") && s.length() > 400) {
            s = s.substring(0, 400) + "...";
        }
        System.out.println(s);
        System.out.flush();
    }

    static String repeatPattern(int n) {
        String pat = "0123456789abcdefghij\u00e9\u4e16";
        StringBuilder sb = new StringBuilder(n);
        while (sb.length() < n) sb.append(pat);
        sb.setLength(n);
        return sb.toString();
    }

    static Map<String, Object> sampleMap() {
        Map<String, Object> inner = new HashMap<>();
        inner.put("k", "v");
        inner.put("n", 7);
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("string", "value");
        m.put("int", 42);
        m.put("long", 1L << 40);
        m.put("double", 3.5d);
        m.put("bool", Boolean.TRUE);
        m.put("null", null);
        m.put("list", new ArrayList<>(Arrays.asList("a", "b")));
        m.put("map", inner);
        m.put("date", new Date(DemoServiceImpl.CREATED_MS));
        return m;
    }

    static final String UNICODE = "h\u00e9llo, \u4e16\u754c \u2713 \ud83d\ude00";

    static int run(String[] args) throws Exception {
        if (args.length < 2) throw new Main.UsageException("consumer needs HOST:PORT or zookeeper://HOST:PORT");
        String registry = args[1].startsWith("zookeeper://") ? DubboSetup.zookeeperRegistry(args[1]) : null;
        String protocol = "dubbo";
        String target = args[1];
        if (target.startsWith("tri://")) {
            if (!DubboSetup.isDubbo3()) {
                throw new Main.UsageException("tri:// needs Dubbo 3 (this is " + DubboSetup.dubboVersion() + ")");
            }
            protocol = "tri";
            target = target.substring("tri://".length());
        } else if (target.startsWith("dubbo://")) {
            target = target.substring("dubbo://".length());
        }
        String[] hp = registry != null ? new String[] {"registry", "0"} : Main.hostPort(target);
        int iterations = 1;
        int timeout = 5000;
        int concurrency = 200;
        String group = null;
        Map<String, String> attach = new LinkedHashMap<>();
        Map<String, String> expectAttach = new LinkedHashMap<>();
        Map<String, String> expectReply = new LinkedHashMap<>();
        long load = -1;
        int payload = 0;
        int warmup = 0;
        int connections = 0;
        String only = null;
        for (int i = 2; i < args.length; i++) {
            String a = args[i];
            if (i + 1 >= args.length) throw new Main.UsageException("missing value for " + a);
            if (a.equals("--only")) {
                only = args[++i];
                if (!only.equals("echo") && !only.equals("demo") && !only.equals("orders")) {
                    throw new Main.UsageException("--only takes echo, demo or orders, got " + only);
                }
                continue;
            }
            if (a.equals("--group")) {
                group = args[++i];
                continue;
            }
            if (a.equals("--register-mode")) {
                // Dubbo's own default is "all" (interface and application level, so a 3.x
                // consumer also discovers application instances); the loopback guard defaults it
                // to "interface" (Loopback.install), which this overrides.
                String mode = args[++i];
                if (!mode.equals("all") && !mode.equals("instance") && !mode.equals("interface")) {
                    throw new Main.UsageException("--register-mode takes all, instance or interface, got " + mode);
                }
                System.setProperty("dubbo.application.register-mode", mode);
                continue;
            }
            if (a.equals("--attach") || a.equals("--expect-attachment") || a.equals("--expect-reply-attachment")) {
                String kv = args[++i];
                int eq = kv.indexOf('=');
                if (eq <= 0) throw new Main.UsageException(a + " needs KEY=VALUE, got " + kv);
                Map<String, String> into = a.equals("--attach") ? attach
                        : a.equals("--expect-attachment") ? expectAttach : expectReply;
                into.put(kv.substring(0, eq), kv.substring(eq + 1));
                continue;
            }
            int v;
            try {
                v = Integer.parseInt(args[++i]);
            } catch (NumberFormatException e) {
                throw new Main.UsageException("bad number for " + a);
            }
            switch (a) {
                case "--iterations": iterations = v; break;
                case "--timeout": timeout = v; break;
                case "--concurrency": concurrency = v; break;
                case "--load": load = v; break;
                case "--payload": payload = v; break;
                case "--warmup": warmup = v; break;
                case "--connections": connections = v; break;
                default: throw new Main.UsageException("unknown option " + a);
            }
        }
        // the IDL-style EchoService checks (Dubbo 3, src/dubbo3): with a tri:// target, unless --only demo
        boolean echo = protocol.equals("tri") && registry == null && !"demo".equals(only);
        if ("echo".equals(only) && !echo) throw new Main.UsageException("--only echo needs a tri://HOST:PORT target");
        Consumer c = new Consumer();
        println("# dubbo " + DubboSetup.dubboVersion() + " consumer -> "
                + (registry != null ? registry : protocol + "://" + hp[0] + ":" + hp[1]));
        if ("echo".equals(only)) {
            Object erc = DubboSetup.dubbo3Call("Echo", "reference",
                    new Class<?>[] {String.class, int.class, int.class, org.apache.dubbo.config.ApplicationConfig.class},
                    hp[0], Integer.parseInt(hp[1]), timeout, null);
            for (int it = 0; it < iterations; it++) {
                if (iterations > 1) println("# iteration " + (it + 1));
                c.runEchoChecks(erc);
            }
            println(c.passed + " passed, " + c.failed + " failed");
            destroy(erc);
            return c.failed == 0 ? 0 : 1;
        }
        if ("orders".equals(only)) {
            if (registry != null) {
                throw new Main.UsageException("--only orders needs a HOST:PORT or tri://HOST:PORT target");
            }
            Orders.run(c, protocol, hp[0], Integer.parseInt(hp[1]), timeout, iterations);
            println(c.passed + " passed, " + c.failed + " failed");
            return c.failed == 0 ? 0 : 1;
        }
        Map<String, String> urlParams = connections > 0 ? Map.of("connections", String.valueOf(connections)) : null;
        ReferenceConfig<DemoService> rc =
                DubboSetup.reference(protocol, hp[0], Integer.parseInt(hp[1]), timeout, urlParams);
        if (registry != null) DubboSetup.viaRegistry(rc, registry);
        if (group != null) rc.setGroup(group);
        DemoService svc;
        try {
            svc = withAttachments(rc.get(), attach);
        } catch (Throwable t) {
            println("FAIL connect: " + describe(t));
            println("0 passed, 1 failed");
            return 1;
        }
        if (group != null || !attach.isEmpty()) {
            println("# group " + group + ", attachments " + attach);
        }
        if (load >= 0) {
            int rcode;
            if (warmup > 0) {
                // A long-lived consumer, as in production: warmed up (JIT, connections) before
                // anything is measured, then one measured run per line on stdin, so that the
                // caller can read its clocks around each; ends at the end of stdin.
                rcode = load(svc, warmup, concurrency, payload);
                println("# warm");
                java.io.BufferedReader in = new java.io.BufferedReader(new java.io.InputStreamReader(System.in));
                while (rcode == 0 && in.readLine() != null) {
                    rcode = load(svc, load, concurrency, payload);
                }
            } else {
                rcode = load(svc, load, concurrency, payload);
            }
            try {
                rc.destroy();
            } catch (Throwable t) {
                // ignore
            }
            return rcode;
        }
        Object erc = echo ? DubboSetup.dubbo3Call("Echo", "reference",
                new Class<?>[] {String.class, int.class, int.class, org.apache.dubbo.config.ApplicationConfig.class},
                hp[0], Integer.parseInt(hp[1]), timeout, rc.getApplication()) : null;
        for (int it = 0; it < iterations; it++) {
            if (iterations > 1) println("# iteration " + (it + 1));
            c.runChecks(svc, concurrency);
            for (Map.Entry<String, String> e : expectAttach.entrySet()) {
                c.check("attachment_" + e.getKey(), () -> eq(e.getValue(), svc.attachment(e.getKey())));
            }
            for (Map.Entry<String, String> e : expectReply.entrySet()) {
                c.check("reply_attachment_" + e.getKey(), () -> {
                    eq(e.getValue(), svc.replyAttachment(e.getKey(), e.getValue()));
                    eq(e.getValue(), replyAttachment(e.getKey()));
                });
            }
            if (erc != null) c.runEchoChecks(erc);
        }
        synchronized (ProtocolRecorder.USED) {
            // more than one when the registry lists the service under several protocols (3.2 with
            // ext-protocol registers dubbo:// and tri://) and the load balancer picked both
            if (ProtocolRecorder.USED.size() > 1) println("# protocols " + String.join(",", ProtocolRecorder.USED));
        }
        println(c.passed + " passed, " + c.failed + " failed");
        if (erc != null) destroy(erc);
        try {
            rc.destroy();
        } catch (Throwable t) {
            // ignore
        }
        return c.failed == 0 ? 0 : 1;
    }

    /** The echo_* checks (Echo.runChecks, src/dubbo3) through the EchoService reference {@code erc}. */
    void runEchoChecks(Object erc) {
        DubboSetup.dubbo3Call("Echo", "runChecks", new Class<?>[] {Consumer.class, ReferenceConfig.class}, this, erc);
    }

    private static void destroy(Object referenceConfig) {
        try {
            ((ReferenceConfig<?>) referenceConfig).destroy();
        } catch (Throwable t) {
            // ignore
        }
    }

    /** The protocol the calls went through ({@link ProtocolRecorder}); set after the first call. */
    private String usedProtocol;

    void runChecks(DemoService svc, int concurrency) {
        check("sayHello", () -> eq("Hello, world", svc.sayHello("world")));
        if (usedProtocol == null && ProtocolRecorder.lastProtocol != null) {
            usedProtocol = ProtocolRecorder.lastProtocol;
            println("# protocol " + usedProtocol);
        }
        boolean tri = "tri".equals(usedProtocol);
        check("sayHello_unicode", () -> eq("Hello, " + UNICODE, svc.sayHello(UNICODE)));
        check("sayHello_null", () -> eq("Hello, null", svc.sayHello(null)));
        check("sayHello_chunked", () -> {
            String s = repeatPattern(40000); // > one 32768-char hessian string chunk
            eq("Hello, " + s, svc.sayHello(s));
        });
        check("getUser", () -> eq(DemoServiceImpl.userFor(42), svc.getUser(42)));
        check("echoUser", () -> {
            User u = new User(1234567890123L, "Zo\u00eb", 41, "zoe@example.com", false, new Date(1234567890123L));
            eq(u, svc.echoUser(u));
        });
        check("echoUser_nulls", () -> {
            User u = new User(0, null, 0, null, false, null);
            eq(u, svc.echoUser(u));
        });
        check("echoUser_null", () -> eq(null, svc.echoUser(null)));
        check("echoMap", () -> {
            Map<String, Object> m = sampleMap();
            Map<String, Object> r = svc.echoMap(m);
            eq(m, r);
            for (Map.Entry<String, Object> e : m.entrySet()) {
                Object got = r.get(e.getKey());
                if (e.getValue() != null && got != null && !(e.getValue() instanceof Map)
                        && !(e.getValue() instanceof List) && e.getValue().getClass() != got.getClass()) {
                    throw new AssertionError("key " + e.getKey() + ": expected a "
                            + e.getValue().getClass().getName() + ", got " + show(got));
                }
            }
        });
        check("echoMap_empty", () -> eq(new HashMap<String, Object>(), svc.echoMap(new HashMap<>())));
        check("echoList", () -> {
            List<String> l = new ArrayList<>(Arrays.asList("alpha", "", "\u03b3", "delta"));
            eq(l, svc.echoList(l));
        });
        check("echoList_empty", () -> eq(Collections.emptyList(), svc.echoList(new ArrayList<>())));
        check("throwError", () -> {
            try {
                svc.throwError("boom");
            } catch (IllegalStateException e) {
                println("# throwError received " + describe(e));
                eq("boom", e.getMessage());
                return;
            } catch (RpcException e) {
                println("# throwError received " + describe(e));
                Throwable cause = e.getCause();
                if (cause instanceof IllegalStateException && "boom".equals(cause.getMessage())) return;
                throw new AssertionError("expected IllegalStateException(boom), got " + describe(e));
            }
            throw new AssertionError("no exception");
        });
        check("doNothing", svc::doNothing);
        if (tri) {
            println("# skip fireAndForget: Triple has no one-way call (TripleInvoker ignores return=false and"
                    + " waits for the unary response)");
        } else check("fireAndForget", () -> {
            String token = "ff-" + System.nanoTime();
            long t0 = System.nanoTime();
            svc.fireAndForget(token);
            long ms = (System.nanoTime() - t0) / 1_000_000;
            if (ms > 2000) throw new AssertionError("one-way call blocked for " + ms + " ms");
            long deadline = System.currentTimeMillis() + 3000;
            String last = null;
            while (System.currentTimeMillis() < deadline) {
                last = svc.lastFired();
                if (token.equals(last)) return;
                Thread.sleep(20);
            }
            throw new AssertionError("lastFired() is " + show(last) + ", expected " + show(token));
        });
        check("add", () -> {
            eq(5, svc.add(2, 3));
            eq(-4, svc.add(-7, 3));
        });
        check("add_wrap", () -> eq(Integer.MIN_VALUE, svc.add(Integer.MAX_VALUE, 1)));
        check("count", () -> {
            long c1 = svc.count();
            long c2 = svc.count();
            if (c1 < 1 || c2 <= c1) throw new AssertionError("count() gave " + c1 + " then " + c2);
        });
        check("slow", () -> eq("slept 10", svc.slow(10)));
        check("slow_timeout", () -> {
            long t0 = System.nanoTime();
            try {
                String r = svc.slow(SLOW_SLEEP_MS);
                throw new AssertionError("no timeout, got " + show(r));
            } catch (RpcException e) {
                long ms = (System.nanoTime() - t0) / 1_000_000;
                println("# slow_timeout received after " + ms + " ms: " + describe(e));
                if (!e.isTimeout() && !tripleDeadline(e)) {
                    throw new AssertionError("not a timeout: " + describe(e));
                }
                if (ms < SLOW_TIMEOUT_MS - 100 || ms > SLOW_SLEEP_MS - 100) {
                    throw new AssertionError("timeout after " + ms + " ms, expected about " + SLOW_TIMEOUT_MS);
                }
            }
        });
        check("after_timeout", () -> eq("Hello, after-timeout", svc.sayHello("after-timeout")));
        check("concurrent_add", () -> concurrent(svc, concurrency));
    }

    /**
     * The response attachment {@code key} of the last call of this thread: 3.x keeps them in
     * {@code RpcContext.getClientResponseContext()}, 2.7 in {@code getServerContext()}.
     */
    static Object replyAttachment(String key) throws ReflectiveOperationException {
        Object ctx;
        try {
            ctx = org.apache.dubbo.rpc.RpcContext.class.getMethod("getClientResponseContext").invoke(null);
        } catch (NoSuchMethodException e) {
            ctx = org.apache.dubbo.rpc.RpcContext.class.getMethod("getServerContext").invoke(null);
        }
        return ctx.getClass().getMethod("getObjectAttachment", String.class).invoke(ctx, key);
    }

    /**
     * {@code --attach K=V}: every call made through the returned service carries these
     * attachments (set on the calling thread's RpcContext just before each call; Dubbo clears
     * them after the call). 3.x: {@code RpcContext.getClientAttachment()}, 2.7: {@code getContext()}.
     */
    static DemoService withAttachments(DemoService svc, Map<String, String> attach) {
        if (attach.isEmpty()) return svc;
        java.lang.reflect.Method ctx;
        try {
            ctx = org.apache.dubbo.rpc.RpcContext.class.getMethod("getClientAttachment");
        } catch (NoSuchMethodException e) {
            try {
                ctx = org.apache.dubbo.rpc.RpcContext.class.getMethod("getContext");
            } catch (NoSuchMethodException e2) {
                throw new IllegalStateException(e2);
            }
        }
        final java.lang.reflect.Method getCtx = ctx;
        return (DemoService) java.lang.reflect.Proxy.newProxyInstance(DemoService.class.getClassLoader(),
                new Class<?>[] {DemoService.class}, (p, m, a) -> {
                    if (m.getDeclaringClass() == Object.class) return m.invoke(svc, a);
                    Object c = getCtx.invoke(null);
                    java.lang.reflect.Method set = c.getClass().getMethod("setAttachment", String.class, String.class);
                    for (Map.Entry<String, String> e : attach.entrySet()) set.invoke(c, e.getKey(), e.getValue());
                    try {
                        return m.invoke(svc, a);
                    } catch (java.lang.reflect.InvocationTargetException e) {
                        throw e.getCause();
                    }
                });
    }

    /**
     * {@code --load CALLS}: {@code sayHello("load-<i>")} CALLS times over {@code --concurrency}
     * threads, each answer checked; with {@code --payload BYTES} the argument is padded with
     * {@code x} to that many characters (what proxy-compare's 64 B / 1 KiB scenarios send); with
     * {@code --warmup CALLS}, that many calls first, then {@code # warm}, then CALLS calls for each
     * line read from stdin, until its end. Prints {@code load ok=<n> failed=<m> ms=<elapsed>} and up to 10
     * {@code # failure <i>: <exception>} lines; exit 0 only if none failed.
     */
    static int load(DemoService svc, long calls, int threads, int payload) throws Exception {
        java.util.concurrent.atomic.AtomicLong next = new java.util.concurrent.atomic.AtomicLong();
        java.util.concurrent.atomic.AtomicLong ok = new java.util.concurrent.atomic.AtomicLong();
        java.util.concurrent.atomic.AtomicLong bad = new java.util.concurrent.atomic.AtomicLong();
        List<String> failures = Collections.synchronizedList(new ArrayList<>());
        ExecutorService pool = Executors.newFixedThreadPool(Math.max(1, threads));
        long t0 = System.nanoTime();
        try {
            List<Future<?>> fs = new ArrayList<>();
            for (int t = 0; t < Math.max(1, threads); t++) {
                fs.add(pool.submit(() -> {
                    long i;
                    while ((i = next.getAndIncrement()) < calls) {
                        String arg = pad("load-" + i, payload);
                        try {
                            String r = svc.sayHello(arg);
                            if (("Hello, " + arg).equals(r)) {
                                ok.incrementAndGet();
                            } else {
                                bad.incrementAndGet();
                                if (failures.size() < 10) failures.add(i + ": wrong answer " + show(r));
                            }
                        } catch (Throwable e) {
                            bad.incrementAndGet();
                            if (failures.size() < 10) failures.add(i + ": " + describe(e));
                        }
                    }
                }));
            }
            for (Future<?> f : fs) f.get();
        } finally {
            pool.shutdownNow();
        }
        long ms = (System.nanoTime() - t0) / 1_000_000;
        for (String f : failures) println("# failure " + f);
        println("load ok=" + ok.get() + " failed=" + bad.get() + " ms=" + ms);
        return bad.get() == 0 ? 0 : 1;
    }

    /** {@code s} padded with {@code x} to {@code length} characters (unchanged if already longer). */
    static String pad(String s, int length) {
        if (s.length() >= length) return s;
        StringBuilder b = new StringBuilder(length).append(s);
        while (b.length() < length) b.append('x');
        return b.toString();
    }

    /** {@code n} threads released at once, each calling add(i, i) and matching 2*i. */
    static void concurrent(DemoService svc, int n) throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(n);
        try {
            CountDownLatch ready = new CountDownLatch(n);
            CountDownLatch go = new CountDownLatch(1);
            List<Future<String>> futures = new ArrayList<>();
            for (int i = 0; i < n; i++) {
                final int k = i;
                futures.add(pool.submit(() -> {
                    ready.countDown();
                    go.await();
                    try {
                        int r = svc.add(k, k);
                        return r == 2 * k ? null : "add(" + k + "," + k + ") = " + r;
                    } catch (Throwable t) {
                        return "add(" + k + "," + k + ") threw " + describe(t);
                    }
                }));
            }
            ready.await(30, TimeUnit.SECONDS);
            go.countDown();
            List<String> errors = new ArrayList<>();
            for (Future<String> f : futures) {
                String e = f.get(60, TimeUnit.SECONDS);
                if (e != null) errors.add(e);
            }
            if (!errors.isEmpty()) {
                throw new AssertionError(errors.size() + " of " + n + " wrong: "
                        + String.join("; ", errors.subList(0, Math.min(5, errors.size()))));
            }
        } finally {
            pool.shutdownNow();
        }
    }

    /**
     * A Triple call ended by its deadline: Dubbo 3.3's consumer sometimes reports its own
     * timer's expiry as an {@code RpcException} with code 0 (not {@code isTimeout()}) caused by
     * a {@code StatusRpcException} {@code DEADLINE_EXCEEDED} ("Waiting server-side response
     * timeout by scan timer"), whatever the provider does: seen against Rust providers.
     */
    private static boolean tripleDeadline(Throwable e) {
        for (Throwable t = e; t != null; t = t.getCause() == t ? null : t.getCause()) {
            String m = String.valueOf(t.getMessage());
            if (t.getClass().getSimpleName().equals("StatusRpcException") && m.startsWith("DEADLINE_EXCEEDED")) {
                return true;
            }
        }
        return false;
    }
}
