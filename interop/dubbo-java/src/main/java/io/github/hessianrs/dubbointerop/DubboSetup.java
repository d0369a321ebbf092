package io.github.hessianrs.dubbointerop;

import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import org.apache.dubbo.common.Version;
import org.apache.dubbo.config.ApplicationConfig;
import org.apache.dubbo.config.MethodConfig;
import org.apache.dubbo.config.ProtocolConfig;
import org.apache.dubbo.config.ReferenceConfig;
import org.apache.dubbo.config.RegistryConfig;
import org.apache.dubbo.config.ServiceConfig;

import io.github.hessianrs.demo.DemoService;

/**
 * Dubbo configuration shared by both flavours (the plain config API, no Spring, no registry).
 * {@code ServiceConfig.export()} / {@code ReferenceConfig.get()} are used instead of
 * {@code DubboBootstrap.start()}, which in 2.7 also exports a MetadataService on another port.
 */
public final class DubboSetup {
    public static final String INTERFACE = DemoService.class.getName();
    public static final String VERSION = "1.0.0";

    private DubboSetup() {
    }

    public static String dubboVersion() {
        return Version.getVersion();
    }

    public static boolean isDubbo3() {
        String v = dubboVersion();
        return v != null && !v.startsWith("2.");
    }

    /** Calls a setter if this Dubbo generation has it. */
    static void trySet(Object target, String setter, Object value) {
        for (Method m : target.getClass().getMethods()) {
            if (m.getName().equals(setter) && m.getParameterCount() == 1
                    && m.getParameterTypes()[0].isInstance(value)) {
                try {
                    m.invoke(target, value);
                    return;
                } catch (ReflectiveOperationException e) {
                    throw new IllegalStateException(setter, e);
                }
            }
        }
    }

    static ApplicationConfig application(String name) {
        ApplicationConfig app = new ApplicationConfig(name);
        app.setQosEnable(false);
        app.setLogger("jdk");
        app.setMetadataType("local");
        app.setRegisterConsumer(false);
        trySet(app, "setRegisterMode", "interface"); // 3.x: no MetadataService export
        trySet(app, "setEnableFileCache", Boolean.FALSE);
        return app;
    }

    static RegistryConfig noRegistry() {
        RegistryConfig r = new RegistryConfig(RegistryConfig.NO_AVAILABLE);
        r.setRegister(false);
        r.setSubscribe(false);
        return r;
    }

    /** Exports {@code impl} with the dubbo protocol, hessian2, on 127.0.0.1:port. */
    static ServiceConfig<DemoService> export(DemoService impl, int port) {
        ProtocolConfig proto = new ProtocolConfig("dubbo", port);
        proto.setHost(Loopback.LOOPBACK_IP);
        proto.setSerialization("hessian2");
        proto.setServer(LoopbackTransporter.NAME);
        trySet(proto, "setPreferSerialization", "hessian2");

        ServiceConfig<DemoService> sc = new ServiceConfig<>();
        sc.setApplication(application("hessianrs-interop-provider"));
        sc.setRegistry(noRegistry());
        sc.setProtocol(proto);
        sc.setInterface(DemoService.class);
        sc.setRef(impl);
        sc.setVersion(VERSION);
        sc.setScope("remote");
        sc.export();
        return sc;
    }

    /** The direct URL of the demo service at host:port. */
    static String directUrl(String host, int port, Map<String, String> extra) {
        StringBuilder sb = new StringBuilder();
        sb.append("dubbo://").append(host).append(':').append(port).append('/').append(INTERFACE)
                .append("?version=").append(VERSION)
                .append("&serialization=hessian2&prefer.serialization=hessian2");
        if (extra != null) {
            extra.forEach((k, v) -> sb.append('&').append(k).append('=').append(v));
        }
        return sb.toString();
    }

    /**
     * A reference through a direct URL: no retries, {@code timeoutMs} per call, {@code slow} with a
     * 500 ms timeout, {@code fireAndForget} one-way (return=false).
     */
    static ReferenceConfig<DemoService> reference(String host, int port, int timeoutMs,
                                                  Map<String, String> extraUrlParams) {
        ReferenceConfig<DemoService> rc = new ReferenceConfig<>();
        rc.setApplication(application("hessianrs-interop-consumer"));
        rc.setInterface(DemoService.class);
        rc.setVersion(VERSION);
        rc.setUrl(directUrl(host, port, extraUrlParams));
        rc.setTimeout(timeoutMs);
        rc.setRetries(0);
        rc.setClient(LoopbackTransporter.NAME);
        rc.setScope("remote");
        rc.setCheck(true);
        Map<String, String> params = new HashMap<>();
        params.put("serialization", "hessian2");
        params.put("prefer.serialization", "hessian2");
        if (extraUrlParams != null) params.putAll(extraUrlParams);
        rc.setParameters(params);

        List<MethodConfig> methods = new ArrayList<>();
        MethodConfig slow = new MethodConfig();
        slow.setName("slow");
        slow.setTimeout(Consumer.SLOW_TIMEOUT_MS);
        slow.setRetries(0);
        methods.add(slow);
        MethodConfig fire = new MethodConfig();
        fire.setName("fireAndForget");
        fire.setReturn(false);
        methods.add(fire);
        rc.setMethods(methods);
        return rc;
    }

    /** A generic ($invoke) reference to the same service. */
    static ReferenceConfig<org.apache.dubbo.rpc.service.GenericService> genericReference(
            String host, int port, int timeoutMs, Map<String, String> extraUrlParams) {
        ReferenceConfig<org.apache.dubbo.rpc.service.GenericService> rc = new ReferenceConfig<>();
        rc.setApplication(application("hessianrs-interop-consumer"));
        rc.setInterface(INTERFACE);
        rc.setGeneric("true");
        rc.setVersion(VERSION);
        rc.setUrl(directUrl(host, port, extraUrlParams));
        rc.setTimeout(timeoutMs);
        rc.setRetries(0);
        rc.setClient(LoopbackTransporter.NAME);
        rc.setScope("remote");
        Map<String, String> params = new HashMap<>();
        params.put("serialization", "hessian2");
        params.put("prefer.serialization", "hessian2");
        if (extraUrlParams != null) params.putAll(extraUrlParams);
        rc.setParameters(params);
        return rc;
    }
}
