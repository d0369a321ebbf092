package io.github.hessianrs.dubbointerop;

/**
 * {@code java -jar dubbo-interop.jar provider PORT | consumer HOST:PORT | capture HOST:PORT OUTDIR |
 * guardtest connect|bind|socket|lookup | version}.
 * Exit codes: 0 ok, 1 check failures, 2 usage or setup error, 3 a non-loopback address was tried.
 */
public final class Main {
    private Main() {
    }

    static void usage() {
        System.err.println("usage:\n"
                + "  provider PORT [--ignore-stdin] [--registry zookeeper://127.0.0.1:ZKPORT] [--weight N] [--param KEY=VALUE]... [--group G] [--bootstrap instance|all] [--protocol dubbo|tri] [--ext-protocol tri] [--orders]\n"
                + "  consumer HOST:PORT|tri://HOST:PORT|zookeeper://127.0.0.1:ZKPORT [--iterations N] [--timeout MS] [--concurrency N] [--group G] [--attach K=V]... [--load CALLS [--payload BYTES] [--warmup CALLS]] [--only echo|demo|orders] [--register-mode all|instance|interface]\n"
                + "  capture HOST:PORT OUTDIR [--wait-readonly SECONDS]\n"
                + "  h2dump LISTENPORT HOST:PORT [--raw DIR]   (Dubbo 3 flavours: HTTP/2 / Triple frame dump relay)\n"
                + "  guardtest connect|bind|socket|lookup|triconnect|tribind\n"
                + "  version\n"
                + "every subcommand also takes --serialization hessian2|fastjson2|default (default: hessian2;\n"
                + "'default' pins nothing, as a stock Dubbo application runs)");
    }

    public static void main(String[] args) throws Exception {
        // first: no Dubbo class may look at the network before the loopback pinning
        Loopback.install();
        configureLogging();
        if (args.length == 0) {
            usage();
            System.exit(2);
        }
        int rc;
        try {
            args = takeSerialization(args);
            switch (args[0]) {
                case "provider":
                    rc = Provider.run(args);
                    break;
                case "consumer":
                    rc = Consumer.run(args);
                    break;
                case "capture":
                    rc = Capture.run(args);
                    break;
                case "h2dump":
                    // Dubbo 3 only (src/dubbo3): found by name so the 2.7 flavour compiles without it
                    try {
                        rc = (Integer) Class.forName("io.github.hessianrs.dubbointerop.H2Dump")
                                .getDeclaredMethod("run", String[].class).invoke(null, (Object) args);
                    } catch (ClassNotFoundException e) {
                        throw new UsageException("h2dump needs a Dubbo 3 flavour");
                    } catch (java.lang.reflect.InvocationTargetException e) {
                        if (e.getCause() instanceof Exception) throw (Exception) e.getCause();
                        throw e;
                    }
                    break;
                case "guardtest":
                    rc = GuardTest.run(args);
                    break;
                case "version":
                    System.out.println("dubbo " + DubboSetup.dubboVersion());
                    System.out.println("security-manager " + Loopback.securityManagerStatus());
                    rc = 0;
                    break;
                default:
                    usage();
                    rc = 2;
            }
        } catch (UsageException e) {
            System.err.println("error: " + e.getMessage());
            usage();
            rc = 2;
        }
        System.out.flush();
        System.exit(rc);
    }

    /** Dubbo logs through java.util.logging to stderr; WARNING unless DUBBO_INTEROP_LOG=INFO/FINE/... */
    private static void configureLogging() {
        LogLevel.apply();
    }

    /**
     * Takes the global option {@code --serialization hessian2|fastjson2|default} (anywhere after
     * the subcommand) out of {@code args} and pins it (see {@link DubboSetup#serialization}).
     */
    private static String[] takeSerialization(String[] args) throws UsageException {
        java.util.List<String> rest = new java.util.ArrayList<>();
        for (int i = 0; i < args.length; i++) {
            if (args[i].equals("--serialization")) {
                if (i + 1 >= args.length) throw new UsageException("--serialization needs a name");
                DubboSetup.pinSerialization(args[++i]);
            } else {
                rest.add(args[i]);
            }
        }
        return rest.toArray(new String[0]);
    }

    /** Bad command line. */
    static final class UsageException extends Exception {
        private static final long serialVersionUID = 1L;

        UsageException(String msg) {
            super(msg);
        }
    }

    /** Parses HOST:PORT; the host must be loopback (else NON-LOOPBACK, exit 3). */
    static String[] hostPort(String s) throws UsageException {
        int i = s.lastIndexOf(':');
        if (i <= 0) throw new UsageException("expected HOST:PORT, got " + s);
        String host = s.substring(0, i);
        int port;
        try {
            port = Integer.parseInt(s.substring(i + 1));
        } catch (NumberFormatException e) {
            throw new UsageException("bad port in " + s);
        }
        Loopback.pinned(host, port, "target from the command line");
        if (host.equalsIgnoreCase("localhost")) host = Loopback.LOOPBACK_IP;
        return new String[] {host, String.valueOf(port)};
    }
}
