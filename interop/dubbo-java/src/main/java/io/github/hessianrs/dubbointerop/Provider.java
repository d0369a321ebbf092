package io.github.hessianrs.dubbointerop;

import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.ServerSocket;

import io.github.hessianrs.demo.DemoServiceImpl;

/**
 * {@code provider PORT [--ignore-stdin]}: exports DemoService (version 1.0.0, dubbo protocol,
 * hessian2) on 127.0.0.1:PORT (0 = a free port), prints {@code READY <port>}, runs until stdin
 * reaches EOF (unless --ignore-stdin) or SIGTERM/SIGINT; Dubbo's shutdown hook then closes the server
 * gracefully (read-only event "R" to every connected client, up to dubbo.service.shutdown.wait=2000 ms).
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
        for (int i = 2; i < args.length; i++) {
            if (args[i].equals("--ignore-stdin")) watchStdin = false;
            else throw new Main.UsageException("unknown option " + args[i]);
        }
        if (port == 0) port = freeLoopbackPort();

        DubboSetup.export(new DemoServiceImpl(), port);
        System.out.println("READY " + port);
        System.out.flush();
        System.err.println("provider: dubbo " + DubboSetup.dubboVersion() + " on 127.0.0.1:" + port
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
