package io.github.hessianrs.dubbointerop;

import java.math.BigDecimal;
import java.util.HashMap;
import java.util.List;

import org.apache.dubbo.config.ApplicationConfig;
import org.apache.dubbo.config.ProtocolConfig;
import org.apache.dubbo.config.ReferenceConfig;
import org.apache.dubbo.config.RegistryConfig;
import org.apache.dubbo.config.ServiceConfig;
import org.apache.dubbo.rpc.RpcException;

import io.github.hessianrs.demo.Order;
import io.github.hessianrs.demo.OrderService;
import io.github.hessianrs.demo.OrderServiceImpl;

/**
 * {@link OrderService} next to DemoService ({@code provider --orders}) and its checks
 * ({@code consumer --only orders}): a DTO of {@code java.time}, {@code BigDecimal}, {@code UUID} and
 * an enum, in whatever serialization the JVM is pinned to.
 */
final class Orders {
    static final String INTERFACE = OrderService.class.getName();

    private Orders() {
    }

    /** Exports OrderService on the protocol (and so the port) DemoService was exported on. */
    static void export(ProtocolConfig proto, ApplicationConfig app, List<RegistryConfig> registries) {
        ServiceConfig<OrderService> sc = new ServiceConfig<>();
        sc.setApplication(app);
        sc.setRegistries(registries);
        sc.setProtocol(proto);
        sc.setInterface(OrderService.class);
        sc.setRef(new OrderServiceImpl());
        sc.setVersion(DubboSetup.VERSION);
        sc.setScope("remote");
        sc.export();
    }

    /**
     * A reference to OrderService at host:port through a direct URL of {@code protocol} ({@code dubbo}
     * or, Dubbo 3, {@code tri}: interface style, each argument wrapped in Triple's request wrapper in
     * the reference's serialization), no retries.
     */
    static ReferenceConfig<OrderService> reference(String protocol, String host, int port, int timeoutMs) {
        ReferenceConfig<OrderService> rc = new ReferenceConfig<>();
        rc.setApplication(DubboSetup.application("hessianrs-interop-consumer"));
        rc.setInterface(OrderService.class);
        rc.setVersion(DubboSetup.VERSION);
        StringBuilder url = new StringBuilder(protocol).append("://").append(host).append(':').append(port).append('/')
                .append(INTERFACE).append("?version=").append(DubboSetup.VERSION);
        DubboSetup.serializationParams().forEach((k, v) -> url.append('&').append(k).append('=').append(v));
        rc.setUrl(url.toString());
        rc.setTimeout(timeoutMs);
        rc.setRetries(0);
        rc.setClient(LoopbackTransporter.NAME);
        rc.setScope("remote");
        rc.setCheck(true);
        rc.setParameters(new HashMap<>(DubboSetup.serializationParams()));
        return rc;
    }

    /**
     * {@code orders_advance}: the provider answers {@code advanced(SENT)}, every field of its exact
     * Java class; {@code orders_mismatch}: an order one cent off is refused by the provider (it
     * checks what it received), with the field named in the exception.
     */
    static void runChecks(Consumer c, OrderService svc) {
        c.check("orders_advance", () -> {
            Order got = svc.advance(OrderService.SENT);
            if (ProtocolRecorder.lastProtocol != null) Consumer.println("# protocol " + ProtocolRecorder.lastProtocol);
            String bad = got == null ? "null answer" : got.mismatches(OrderService.advanced(OrderService.SENT));
            if (!bad.isEmpty()) throw new AssertionError(bad);
        });
        c.check("orders_mismatch", () -> {
            Order s = OrderService.SENT;
            Order off = new Order(s.getId(), s.getPlaced(), s.getDue(), s.getPaid(), new BigDecimal("1234.51"),
                    s.getStatus());
            Order got;
            try {
                got = svc.advance(off);
            } catch (RuntimeException e) {
                Consumer.println("# orders_mismatch received " + Consumer.describe(e));
                // the provider's exception itself, or (as for throwError) the cause of an RpcException
                Throwable t = e instanceof RpcException && e.getCause() != null ? e.getCause() : e;
                String m = String.valueOf(t.getMessage());
                if (!(t instanceof IllegalArgumentException) || !m.contains("amount") || !m.contains("1234.51")) {
                    throw new AssertionError("not a refusal naming the amount: " + Consumer.describe(e));
                }
                return;
            }
            throw new AssertionError("a wrong amount was accepted, answer " + got);
        });
    }

    /**
     * {@code consumer [tri://]HOST:PORT --only orders}: only the OrderService checks (after
     * {@code orders_connect}); prints {@code # protocol P} (the protocol the first call went through)
     * and {@code # serialization S} (the reference's, {@code default} when nothing is pinned).
     */
    static void run(Consumer c, String protocol, String host, int port, int timeoutMs, int iterations) {
        ReferenceConfig<OrderService> rc = reference(protocol, host, port, timeoutMs);
        OrderService[] svc = new OrderService[1];
        c.check("orders_connect", () -> svc[0] = rc.get());
        Consumer.println("# serialization " + (DubboSetup.serialization != null ? DubboSetup.serialization : "default"));
        for (int it = 0; svc[0] != null && it < iterations; it++) runChecks(c, svc[0]);
        try {
            rc.destroy();
        } catch (Throwable t) {
            // ignore
        }
    }
}
