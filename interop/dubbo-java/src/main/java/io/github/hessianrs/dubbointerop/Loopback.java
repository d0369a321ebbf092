package io.github.hessianrs.dubbointerop;

import java.io.IOException;
import java.lang.reflect.Field;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.net.UnknownHostException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.security.Permission;
import java.util.HashSet;
import java.util.Locale;
import java.util.Set;

/**
 * Keeps every socket of this JVM on the loopback interface.
 *
 * <ol>
 *   <li>Dubbo's {@code NetUtils} caches ({@code LOCAL_ADDRESS}, {@code HOST_ADDRESS}, ...) are
 *       pre-set to 127.0.0.1 before Dubbo looks at the network interfaces, so Dubbo's "local host"
 *       is 127.0.0.1: {@code filterLocalHost("127.0.0.1")} stays 127.0.0.1, the provider's
 *       {@code bind.ip} is 127.0.0.1, and no {@code isReachable} probe of a LAN address is made.</li>
 *   <li>{@link LoopbackTransporter} (registered through Dubbo's SPI as {@code loopback} and over
 *       {@code netty}/{@code netty4}) binds and connects only to the loopback address in the URL,
 *       ignoring Dubbo's {@code anyhost} rewrite to 0.0.0.0, and checks both ends of every channel.</li>
 *   <li>A catch-all {@link SecurityManager} (JDK 17 still allows one) vets every socket connect,
 *       datagram send, accept, multicast and host-name lookup of the JVM.</li>
 * </ol>
 * Any non-loopback attempt prints {@code NON-LOOPBACK <addr> (<what>)} on stdout and stderr and
 * halts the JVM with status 3 (no shutdown hooks, so nothing more is sent).
 */
public final class Loopback {
    public static final int EXIT_NON_LOOPBACK = 3;
    public static final String LOOPBACK_IP = "127.0.0.1";

    /** Names that resolve to a loopback address without DNS (localhost, loopback lines of /etc/hosts). */
    private static final Set<String> LOOKUP_NAMES = new HashSet<>();
    private static volatile boolean trace;
    private static volatile boolean traceStack;
    private static volatile String securityManagerStatus = "not installed";

    private Loopback() {
    }

    /** Must run first in main, before any Dubbo or networking class is used. */
    public static void install() {
        String t = System.getenv("DUBBO_INTEROP_TRACE_NET");
        trace = t != null && !t.isEmpty();
        traceStack = "stack".equals(t);
        setDefault("java.net.preferIPv4Stack", "true");
        // Dubbo configuration read from system properties (both generations).
        setDefault("dubbo.application.logger", "jdk");
        setDefault("dubbo.application.qos-enable", "false");
        setDefault("dubbo.application.qos.enable", "false");
        setDefault("dubbo.qos.enable", "false");
        setDefault("dubbo.application.register-mode", "interface");
        setDefault("dubbo.application.metadata-type", "local");
        setDefault("dubbo.application.enable-file-cache", "false");
        setDefault("dubbo.application.check-serializable", "true");
        setDefault("dubbo.service.shutdown.wait", "2000");
        // If anything bypasses the pinned caches and enumerates interfaces, it finds none:
        // no isReachable() probe of a LAN address.
        setDefault("dubbo.network.interface.ignored", ".*");
        // ZooKeeper's client (provider --registry): no SASL, so no Kerberos principal built from a
        // canonicalised (reverse-looked-up) server host name.
        setDefault("zookeeper.sasl.client", "false");
        setDefault("zookeeper.sasl.client.canonicalize.hostname", "false");
        LOOKUP_NAMES.add("localhost");
        LOOKUP_NAMES.add("localhost.localdomain");
        LOOKUP_NAMES.add("ip6-localhost");
        LOOKUP_NAMES.add("ip6-loopback");
        readEtcHosts();
        installSecurityManager();
        pinDubboNetUtils();
    }

    private static void setDefault(String key, String value) {
        if (System.getProperty(key) == null) {
            System.setProperty(key, value);
        }
    }

    private static void readEtcHosts() {
        Path hosts = Paths.get("/etc/hosts");
        if (!Files.isReadable(hosts)) {
            return;
        }
        try {
            for (String line : Files.readAllLines(hosts, StandardCharsets.ISO_8859_1)) {
                int hash = line.indexOf('#');
                if (hash >= 0) line = line.substring(0, hash);
                String[] parts = line.trim().split("\\s+");
                if (parts.length >= 2 && isLoopbackLiteral(parts[0])) {
                    for (int i = 1; i < parts.length; i++) {
                        LOOKUP_NAMES.add(parts[i].toLowerCase(Locale.ROOT));
                    }
                }
            }
        } catch (IOException e) {
            // no extra names
        }
    }

    /** Pre-sets Dubbo's cached local address to 127.0.0.1 (fields differ between 2.7 and 3.2). */
    private static void pinDubboNetUtils() {
        InetAddress lo;
        try {
            lo = InetAddress.getByAddress("localhost", new byte[] {127, 0, 0, 1});
        } catch (UnknownHostException e) {
            throw new IllegalStateException(e);
        }
        Class<?> netUtils;
        try {
            netUtils = Class.forName("org.apache.dubbo.common.utils.NetUtils");
        } catch (ClassNotFoundException e) {
            throw new IllegalStateException("Dubbo's NetUtils not found", e);
        }
        setStatic(netUtils, "LOCAL_ADDRESS", lo, true);
        setStatic(netUtils, "HOST_ADDRESS", LOOPBACK_IP, true);
        // 3.x: "" means "looked for, no IPv6 address" (no interface scan, no ipv6 connect attempt)
        setStatic(netUtils, "HOST_ADDRESS_V6", "", false);
        setStatic(netUtils, "HOST_NAME", "localhost", false);
    }

    private static void setStatic(Class<?> cl, String name, Object value, boolean required) {
        try {
            Field f = cl.getDeclaredField(name);
            f.setAccessible(true);
            f.set(null, value);
        } catch (NoSuchFieldException e) {
            if (required) throw new IllegalStateException("NetUtils." + name + " not found", e);
        } catch (IllegalAccessException e) {
            throw new IllegalStateException("cannot set NetUtils." + name, e);
        }
    }

    private static void installSecurityManager() {
        try {
            @SuppressWarnings("removal")
            SecurityManager sm = new Guard();
            System.setSecurityManager(sm);
            securityManagerStatus = "installed";
        } catch (UnsupportedOperationException | SecurityException e) {
            // JDK 18+ without -Djava.security.manager=allow: the transporter checks remain.
            securityManagerStatus = "unavailable (" + e + "); run with -Djava.security.manager=allow";
            System.err.println("WARNING: loopback guard: SecurityManager " + securityManagerStatus);
        }
    }

    public static String securityManagerStatus() {
        return securityManagerStatus;
    }

    // ---------------------------------------------------------------- address checks

    /** 127.0.0.0/8, ::1 and ::ffff:127.x literals (no name resolution). */
    public static boolean isLoopbackLiteral(String host) {
        if (host == null) return false;
        String h = host.trim();
        if (h.startsWith("[") && h.endsWith("]")) h = h.substring(1, h.length() - 1);
        int pct = h.indexOf('%');
        if (pct >= 0) h = h.substring(0, pct);
        h = h.toLowerCase(Locale.ROOT);
        if (h.startsWith("::ffff:")) h = h.substring(7);
        if (h.equals("::1") || h.equals("0:0:0:0:0:0:0:1")) return true;
        String[] parts = h.split("\\.", -1);
        if (parts.length != 4) return false;
        for (String p : parts) {
            if (p.isEmpty() || p.length() > 3) return false;
            for (int i = 0; i < p.length(); i++) {
                if (!Character.isDigit(p.charAt(i))) return false;
            }
            if (Integer.parseInt(p) > 255) return false;
        }
        return parts[0].equals("127");
    }

    /** A loopback literal or {@code localhost}. */
    public static boolean isLoopbackHost(String host) {
        return isLoopbackLiteral(host) || (host != null && host.equalsIgnoreCase("localhost"));
    }

    /**
     * The socket address for {@code host:port} if host is loopback (localhost maps to 127.0.0.1,
     * without any lookup); otherwise {@link #fail}.
     */
    public static InetSocketAddress pinned(String host, int port, String what) {
        if (!isLoopbackHost(host)) {
            fail(host + ":" + port, what);
        }
        String ip = host.equalsIgnoreCase("localhost") ? LOOPBACK_IP : host;
        if (ip.startsWith("[") && ip.endsWith("]")) ip = ip.substring(1, ip.length() - 1);
        try {
            // a literal: no name service involved
            return new InetSocketAddress(InetAddress.getByName(ip), port);
        } catch (UnknownHostException e) {
            fail(host + ":" + port, what + ", unparsable");
            return null;
        }
    }

    /** Fails unless the socket address is a loopback one. */
    public static void check(SocketAddress a, String what) {
        if (a == null) return;
        if (a instanceof InetSocketAddress) {
            InetSocketAddress isa = (InetSocketAddress) a;
            InetAddress ia = isa.getAddress();
            if (ia != null ? ia.isLoopbackAddress() : isLoopbackHost(isa.getHostString())) {
                return;
            }
            fail((ia != null ? ia.getHostAddress() : isa.getHostString()) + ":" + isa.getPort(), what);
        }
        fail(String.valueOf(a), what);
    }

    /** Prints {@code NON-LOOPBACK <addr> (<what>)} and halts with status 3. */
    public static void fail(String addr, String what) {
        String line = "NON-LOOPBACK " + addr + " (" + what + ")";
        System.out.println(line);
        System.out.flush();
        System.err.println(line);
        new Throwable("stack of the non-loopback attempt").printStackTrace();
        System.err.flush();
        Runtime.getRuntime().halt(EXIT_NON_LOOPBACK);
    }

    private static void trace(String s) {
        if (trace) {
            System.err.println("[net] " + s);
            if (traceStack) {
                new Throwable("[net] stack").printStackTrace();
            }
        }
    }

    /** Allows everything except non-loopback connects, sends, accepts, multicast and lookups. */
    @SuppressWarnings("removal")
    private static final class Guard extends SecurityManager {
        @Override
        public void checkPermission(Permission perm) {
        }

        @Override
        public void checkPermission(Permission perm, Object context) {
        }

        @Override
        public void checkConnect(String host, int port) {
            checkHost(host, port);
        }

        @Override
        public void checkConnect(String host, int port, Object context) {
            checkHost(host, port);
        }

        private void checkHost(String host, int port) {
            trace((port == -1 ? "lookup " : "connect ") + host + (port == -1 ? "" : ":" + port));
            if (port == -1) {
                // a name lookup (or the check of a reverse lookup's answer): only names that
                // resolve without DNS to loopback
                if (!isLoopbackLiteral(host) && !LOOKUP_NAMES.contains(host.toLowerCase(Locale.ROOT))) {
                    fail(host, "name lookup");
                }
            } else if (!isLoopbackLiteral(host)) {
                fail(host + ":" + port, "socket connect/send");
            }
        }

        @Override
        public void checkAccept(String host, int port) {
            trace("accept " + host + ":" + port);
            if (!isLoopbackLiteral(host)) {
                fail(host + ":" + port, "accept");
            }
        }

        @Override
        public void checkListen(int port) {
            trace("listen " + port);
        }

        @Override
        public void checkMulticast(InetAddress maddr) {
            fail(maddr.getHostAddress(), "multicast");
        }

        @Override
        @Deprecated
        public void checkMulticast(InetAddress maddr, byte ttl) {
            fail(maddr.getHostAddress(), "multicast");
        }
    }
}
