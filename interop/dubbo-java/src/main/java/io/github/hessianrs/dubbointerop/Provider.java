package io.github.hessianrs.dubbointerop;

import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.util.LinkedHashMap;
import java.util.Map;

import org.apache.dubbo.config.ServiceConfig;

import io.github.hessianrs.demo.DemoService;
import io.github.hessianrs.demo.DemoServiceImpl;

/**
 * {@code provider PORT [--ignore-stdin] [--registry zookeeper://127.0.0.1:ZKPORT] [--weight N]
 * [--param KEY=VALUE]... [--group G] [--metadata-report] [--bootstrap instance|all] [--protocol dubbo|tri]
 * [--ext-protocol tri]}: exports DemoService (version 1.0.0, dubbo protocol unless --protocol tri (Dubbo 3), hessian2 unless --serialization) on
 * 127.0.0.1:PORT (0 = a free port), prints {@code READY <port>}, runs until stdin reaches EOF (unless
 * --ignore-stdin) or SIGTERM/SIGINT; Dubbo's shutdown hook then closes the server gracefully
 * (read-only event "R" to every connected client, up to dubbo.service.shutdown.wait=2000 ms).
 *
 * <p>With {@code --registry}, the provider also registers in that ZooKeeper (which must be on
 * loopback) the way Dubbo does: an ephemeral node {@code /dubbo/<interface>/providers/<URL-encoded
 * provider URL>}; {@code READY} is printed once the node is written. The graceful shutdown removes
 * the node first; a killed provider's node goes when its ZooKeeper session expires.
 * {@code --bootstrap instance|all} (Dubbo 3, with {@code --registry}) starts the application as a
 * stock Dubbo 3 one does, through {@code DubboBootstrap} with that register mode: the instance under
 * {@code /services/hessianrs-interop-provider}, the mapping under {@code /dubbo/mapping}, and a
 * MetadataService on another free loopback port.
 * {@code --metadata-report} (with {@code --registry}, interface level) also makes that ZooKeeper the
 * metadata report, as a 2.7 application with {@code dubbo.metadata-report.address} does: Dubbo writes
 * the service definition (methods with their parameter and return types) under
 * {@code /dubbo/metadata/<interface>/<version>/provider/<application>}.
 * With {@code --protocol tri} or {@code --ext-protocol tri} (Dubbo 3) the same port also serves the
 * IDL-style {@code io.github.hessianrs.demo.EchoService} (protobuf StringValue messages, no version,
 * no group; src/dubbo3).
 * {@code --orders} also exports {@code io.github.hessianrs.demo.OrderService} (version 1.0.0, no group) on the
 * same port: a DTO of java.time, BigDecimal, UUID and an enum, checked on arrival ({@link Orders}).
 * {@code --group G} exports the service in Dubbo group G (callers must send the attachment
 * {@code group=G}). {@code --weight} and {@code --param} (e.g. {@code idc=hz}, {@code warmup=0}) go into that URL.
 */
final class Provider {
    private Provider() {
    }

    static int run(String[] args) throws Exception {
        if (args.length < 2) throw new Main.UsageException("provider needs PORT");
        int port;
        try {
            port = Integer.parseInt(args[1]);
        } catch (NumberFormatException e) {
            throw new Main.UsageException("bad port " + args[1]);
        }
        boolean watchStdin = true;
        String registry = null;
        Integer weight = null;
        Map<String, String> params = new LinkedHashMap<>();
        String group = null;
        String bootstrapMode = null;
        boolean metadataReport = false;
        boolean orders = false;
        String protocol = "dubbo";
        String extProtocol = null;
        for (int i = 2; i < args.length; i++) {
            String a = args[i];
            if (a.equals("--ignore-stdin")) {
                watchStdin = false;
            } else if (a.equals("--registry") && i + 1 < args.length) {
                registry = DubboSetup.zookeeperRegistry(args[++i]);
            } else if (a.equals("--weight") && i + 1 < args.length) {
                try {
                    weight = Integer.parseInt(args[++i]);
                } catch (NumberFormatException e) {
                    throw new Main.UsageException("bad weight " + args[i]);
                }
            } else if (a.equals("--bootstrap") && i + 1 < args.length) {
                bootstrapMode = args[++i];
                if (!bootstrapMode.equals("instance") && !bootstrapMode.equals("all")) {
                    throw new Main.UsageException("--bootstrap takes instance or all, got " + bootstrapMode);
                }
            } else if (a.equals("--protocol") && i + 1 < args.length) {
                protocol = args[++i];
                if (!protocol.equals("dubbo") && !protocol.equals("tri")) {
                    throw new Main.UsageException("--protocol takes dubbo or tri, got " + protocol);
                }
            } else if (a.equals("--ext-protocol") && i + 1 < args.length) {
                extProtocol = args[++i];
            } else if (a.equals("--orders")) {
                orders = true;
            } else if (a.equals("--metadata-report")) {
                metadataReport = true;
            } else if (a.equals("--group") && i + 1 < args.length) {
                group = args[++i];
            } else if (a.equals("--param") && i + 1 < args.length) {
                String kv = args[++i];
                int eq = kv.indexOf('=');
                if (eq <= 0) throw new Main.UsageException("--param needs KEY=VALUE, got " + kv);
                String key = kv.substring(0, eq);
                // Dubbo 3.3's ProtocolConfig.preferredProtocol ("dubbo.protocol.preferred-protocol")
                // reaches the URL as "preferred.protocol", the key its RegistryDirectory reads; a raw
                // "preferred-protocol" URL parameter would be ignored.
                if (key.equals("preferred-protocol")) key = "preferred.protocol";
                params.put(key, kv.substring(eq + 1));
            } else {
                throw new Main.UsageException("unknown option " + a);
            }
        }
        if (port == 0) port = freeLoopbackPort();
        if ((!protocol.equals("dubbo") || extProtocol != null) && !DubboSetup.isDubbo3()) {
            throw new Main.UsageException("--protocol tri and --ext-protocol need Dubbo 3 (this is "
                    + DubboSetup.dubboVersion() + ")");
        }
        if (bootstrapMode != null && extProtocol != null) {
            throw new Main.UsageException("--bootstrap takes no --ext-protocol");
        }

        if (bootstrapMode != null) {
            if (registry == null || weight != null || group != null || !params.isEmpty() || metadataReport) {
                throw new Main.UsageException(
                        "--bootstrap needs --registry and takes no --weight, --group, --param, --metadata-report");
            }
            if (!DubboSetup.isDubbo3()) throw new Main.UsageException("--bootstrap needs Dubbo 3");
            if (orders) throw new Main.UsageException("--bootstrap takes no --orders");
            DubboSetup.bootstrap(new DemoServiceImpl(), port, freeLoopbackPort(), registry, bootstrapMode,
                    "hessianrs-interop-provider", protocol);
        } else {
            if (metadataReport && registry == null) throw new Main.UsageException("--metadata-report needs --registry");
            ServiceConfig<DemoService> sc = DubboSetup.export(new DemoServiceImpl(), port, registry, weight, params,
                    group, metadataReport, protocol, extProtocol);
            if (orders) Orders.export(sc.getProtocols().get(0), sc.getApplication(), sc.getRegistries());
        }
        System.out.println("READY " + port);
        System.out.flush();
        System.err.println("provider: dubbo " + DubboSetup.dubboVersion() + ", protocol " + protocol
                + (extProtocol != null ? " + ext-protocol " + extProtocol : "") + " on 127.0.0.1:" + port
                + (group != null ? ", group " + group : "")
                + (registry != null ? ", registered in " + registry : "")
                + ", security manager " + Loopback.securityManagerStatus());

        if (watchStdin) {
            InputStream in = System.in;
            byte[] buf = new byte[256];
            try {
                while (in.read(buf) >= 0) {
                    // ignore input
                }
            } catch (IOException e) {
                // treat as closed
            }
            System.err.println("provider: stdin closed, shutting down");
            return 0; // System.exit runs Dubbo's shutdown hook (graceful close)
        }
        Thread.currentThread().join(); // until SIGTERM
        return 0;
    }

    private static int freeLoopbackPort() throws IOException {
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getByAddress(new byte[] {127, 0, 0, 1}))) {
            return s.getLocalPort();
        }
    }
}
