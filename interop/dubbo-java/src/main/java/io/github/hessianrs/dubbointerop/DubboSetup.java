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
import org.apache.dubbo.config.MetadataReportConfig;
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

    /**
     * The serialization every provider and reference of this JVM is pinned to
     * ({@code --serialization NAME}, see {@link Main}): {@code hessian2} unless told otherwise;
     * {@code null} ({@code --serialization default}) pins nothing, so Dubbo's own defaults apply as
     * in a stock application (a Dubbo 3 provider then advertises its PreferSerializationProvider's
     * list: 3.2 {@code prefer.serialization=fastjson2,hessian2}, 3.3 {@code hessian2,fastjson2}).
     */
    static String serialization = "hessian2";

    /** Sets {@link #serialization} from the command line's {@code --serialization} value. */
    static void pinSerialization(String name) {
        serialization = name.equals("default") ? null : name;
    }

    /** The URL parameters that pin {@link #serialization}, none when nothing is pinned. */
    static Map<String, String> serializationParams() {
        Map<String, String> params = new HashMap<>();
        if (serialization != null) {
            params.put("serialization", serialization);
            params.put("prefer.serialization", serialization);
        }
        return params;
    }

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

    /**
     * The registry address for {@code zookeeper://HOST:PORT[?k=v&...]}: HOST must be loopback
     * (else NON-LOOPBACK, exit 3); {@code localhost} becomes 127.0.0.1.
     */
    static String zookeeperRegistry(String address) throws Main.UsageException {
        String prefix = "zookeeper://";
        if (!address.startsWith(prefix)) {
            throw new Main.UsageException("--registry must be zookeeper://HOST:PORT, got " + address);
        }
        String rest = address.substring(prefix.length());
        int q = rest.indexOf('?');
        String query = q >= 0 ? rest.substring(q) : "";
        String hostPort = q >= 0 ? rest.substring(0, q) : rest;
        if (hostPort.contains(",") || hostPort.contains("/")) {
            throw new Main.UsageException("--registry takes one HOST:PORT, got " + address);
        }
        String[] hp = Main.hostPort(hostPort);
        return prefix + hp[0] + ":" + hp[1] + query;
    }

    /** A ZooKeeper registry used only to register (not as config or metadata centre). */
    static RegistryConfig zookeeper(String address) {
        RegistryConfig r = new RegistryConfig(address);
        r.setRegister(true);
        r.setSubscribe(true);
        r.setCheck(true);
        trySet(r, "setUseAsConfigCenter", Boolean.FALSE);
        // Dubbo's default is true. Off unless application-level discovery is on (consumer
        // --register-mode all|instance): a consumer reads the interface -> application mapping
        // from the metadata centre, and without one finds no application instance.
        String mode = System.getProperty("dubbo.application.register-mode", "interface");
        if (mode.equals("interface")) trySet(r, "setUseAsMetadataCenter", Boolean.FALSE);
        return r;
    }

    /** Exports {@code impl} with the dubbo protocol, {@link #serialization}, on 127.0.0.1:port. */
    static ServiceConfig<DemoService> export(DemoService impl, int port) {
        return export(impl, port, null, null, null);
    }

    /**
     * Exports {@code impl} with the dubbo protocol, {@link #serialization}, on 127.0.0.1:port; registered in
     * {@code registry} (a {@link #zookeeperRegistry} address) unless it is null, with {@code weight}
     * and {@code params} (may be null) in the provider URL.
     */
    static ServiceConfig<DemoService> export(DemoService impl, int port, String registry, Integer weight,
                                            Map<String, String> params) {
        return export(impl, port, registry, weight, params, null, false);
    }

    /**
     * As above, exported in Dubbo group {@code group} unless it is null; with {@code metadataReport}
     * the registry is also the metadata report, where Dubbo publishes the service definition.
     */
    static ServiceConfig<DemoService> export(DemoService impl, int port, String registry, Integer weight,
                                            Map<String, String> params, String group, boolean metadataReport) {
        return export(impl, port, registry, weight, params, group, metadataReport, "dubbo", null);
    }

    /**
     * As above, with {@code protocol} ({@code dubbo} or, Dubbo 3, {@code tri}) and, unless null,
     * {@code extProtocol} (Dubbo 3: {@code ProtocolConfig.setExtProtocol}, the same port also serves
     * that protocol through Dubbo's port-unification server). {@code server=loopback} selects
     * {@link LoopbackTransporter} for a plain dubbo server and Dubbo 3's port-unification transporter
     * of the same name (LoopbackPuTransporter, src/dubbo3) for Triple and for the one-port server.
     */
    static ServiceConfig<DemoService> export(DemoService impl, int port, String registry, Integer weight,
                                            Map<String, String> params, String group, boolean metadataReport,
                                            String protocol, String extProtocol) {
        ProtocolConfig proto = new ProtocolConfig(protocol, port);
        proto.setHost(Loopback.LOOPBACK_IP);
        proto.setServer(LoopbackTransporter.NAME);
        if (extProtocol != null) trySet(proto, "setExtProtocol", extProtocol);
        if (serialization != null) {
            proto.setSerialization(serialization);
            trySet(proto, "setPreferSerialization", serialization);
        } else if (isDubbo3()) {
            // Dubbo's own defaults, as a stock application gets them: its ProtocolConfig is managed
            // (Spring Boot's dubbo.protocol.*, DubboBootstrap.protocol) and refreshed by the
            // application deployer, whose ProtocolConfig.checkDefault sets prefer-serialization to
            // PreferSerializationProvider's "fastjson2,hessian2". One only handed to
            // ServiceConfig.setProtocol is never refreshed: its URL offers no serialization, and it
            // takes hessian2 alone ("Unexpected serialization id:23" for a fastjson2 request).
            proto.refresh();
        }

        ServiceConfig<DemoService> sc = new ServiceConfig<>();
        sc.setApplication(application("hessianrs-interop-provider"));
        sc.setRegistry(registry == null ? noRegistry() : zookeeper(registry));
        if (metadataReport) sc.setMetadataReportConfig(new MetadataReportConfig(registry));
        if (weight != null) sc.setWeight(weight);
        if (params != null && !params.isEmpty()) sc.setParameters(new HashMap<>(params));
        sc.setProtocol(proto);
        sc.setInterface(DemoService.class);
        sc.setRef(impl);
        sc.setVersion(VERSION);
        if (group != null) sc.setGroup(group);
        sc.setScope("remote");
        sc.export();
        if ("tri".equals(protocol) || "tri".equals(extProtocol)) {
            // Dubbo 3 only (src/dubbo3): the IDL-style EchoService next to DemoService, same port
            dubbo3Call("Echo", "export", new Class<?>[] {ProtocolConfig.class, ApplicationConfig.class, List.class},
                    proto, sc.getApplication(), sc.getRegistries());
        }
        return sc;
    }

    /** Calls the static method {@code name} of the Dubbo 3 only class {@code cls} (src/dubbo3) by reflection. */
    static Object dubbo3Call(String cls, String name, Class<?>[] types, Object... args) {
        try {
            java.lang.reflect.Method m = Class.forName("io.github.hessianrs.dubbointerop." + cls)
                    .getDeclaredMethod(name, types);
            m.setAccessible(true);
            return m.invoke(null, args);
        } catch (java.lang.reflect.InvocationTargetException e) {
            Throwable c = e.getCause();
            if (c instanceof RuntimeException) throw (RuntimeException) c;
            if (c instanceof Error) throw (Error) c;
            throw new IllegalStateException(c);
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException(cls + "." + name + " needs a Dubbo 3 flavour", e);
        }
    }

    /**
     * Starts {@code impl} as a stock Dubbo 3 application does: through {@code DubboBootstrap}, with
     * {@code registerMode} ({@code instance}: only {@code /services/<app>/<ip:port>} and
     * {@code /dubbo/mapping/<interface>}; {@code all}: those and the interface-level URL) and the
     * default {@code metadata-type=local}, so consumers fetch the service metadata from the
     * MetadataService the bootstrap exports on {@code metadataPort} (127.0.0.1 and the loopback
     * transporter too, merged from the protocol config below). With {@code protocol} {@code tri}
     * (Dubbo 3.3) the MetadataService is served over Triple too: its protocol is the application's
     * first protocol ({@code InternalServiceConfigBuilder.getRelatedOrDefaultProtocol}).
     */
    static void bootstrap(DemoService impl, int port, int metadataPort, String registry, String registerMode,
                          String appName, String protocol) {
        ProtocolConfig proto = new ProtocolConfig(protocol, port);
        proto.setHost(Loopback.LOOPBACK_IP);
        proto.setServer(LoopbackTransporter.NAME);
        if (serialization != null) {
            proto.setSerialization(serialization);
            trySet(proto, "setPreferSerialization", serialization);
        }
        // Loopback.install defaults this system property to "interface", and Dubbo 3 lets system
        // properties override the API config.
        System.setProperty("dubbo.application.register-mode", registerMode);
        ApplicationConfig app = application(appName);
        trySet(app, "setRegisterMode", registerMode);
        trySet(app, "setMetadataServicePort", metadataPort);
        // 3.2 prepares the application instance (MetadataService, /services node) only then.
        app.setRegisterConsumer(true);
        // The registry is also the metadata centre, as by default: /dubbo/mapping/<interface>.
        RegistryConfig zk = zookeeper(registry);
        trySet(zk, "setUseAsMetadataCenter", Boolean.TRUE);
        ServiceConfig<DemoService> sc = new ServiceConfig<>();
        sc.setInterface(DemoService.class);
        sc.setRef(impl);
        sc.setVersion(VERSION);
        org.apache.dubbo.config.bootstrap.DubboBootstrap.getInstance()
                .application(app)
                .registry(zk)
                .protocol(proto)
                .service(sc)
                .start();
    }

    /** The direct URL of the demo service at host:port. */
    static String directUrl(String host, int port, Map<String, String> extra) {
        return directUrl("dubbo", host, port, extra);
    }

    /** The direct URL of the demo service at host:port with {@code protocol} (dubbo, tri). */
    static String directUrl(String protocol, String host, int port, Map<String, String> extra) {
        StringBuilder sb = new StringBuilder();
        sb.append(protocol).append("://").append(host).append(':').append(port).append('/').append(INTERFACE)
                .append("?version=").append(VERSION);
        serializationParams().forEach((k, v) -> sb.append('&').append(k).append('=').append(v));
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
        return reference("dubbo", host, port, timeoutMs, extraUrlParams);
    }

    /** As above, the direct URL with {@code protocol} ({@code dubbo} or {@code tri}). */
    static ReferenceConfig<DemoService> reference(String protocol, String host, int port, int timeoutMs,
                                                  Map<String, String> extraUrlParams) {
        ReferenceConfig<DemoService> rc = new ReferenceConfig<>();
        rc.setApplication(application("hessianrs-interop-consumer"));
        rc.setInterface(DemoService.class);
        rc.setVersion(VERSION);
        rc.setUrl(directUrl(protocol, host, port, extraUrlParams));
        rc.setTimeout(timeoutMs);
        rc.setRetries(0);
        rc.setClient(LoopbackTransporter.NAME);
        rc.setScope("remote");
        rc.setCheck(true);
        Map<String, String> params = serializationParams();
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

    /**
     * Makes {@code rc} find its providers in {@code registry} (a {@link #zookeeperRegistry}
     * address) instead of its direct URL: what a stock consumer configured only with
     * {@code registry=zookeeper://...} does (it also registers itself under {@code consumers}).
     */
    static void viaRegistry(ReferenceConfig<?> rc, String registry) {
        rc.setUrl(null);
        RegistryConfig zk = zookeeper(registry);
        rc.setRegistry(zk);
        // With application-level discovery (--register-mode all|instance, Dubbo 3), the registry
        // is also the application's global one, as in a stock application, so that it becomes
        // the metadata centre.
        if (!System.getProperty("dubbo.application.register-mode", "interface").equals("interface")) {
            dubbo3Call("AppLevel", "addDefaultRegistry", new Class<?>[] {RegistryConfig.class}, zk);
        }
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
        Map<String, String> params = serializationParams();
        if (extraUrlParams != null) params.putAll(extraUrlParams);
        rc.setParameters(params);
        return rc;
    }
}
