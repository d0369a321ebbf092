package io.github.hessianrs.dubbointerop;

import org.apache.dubbo.common.URL;
import org.apache.dubbo.remoting.transport.ChannelHandlerAdapter;

/**
 * {@code guardtest connect|bind|socket|lookup}: proves the loopback guard without sending anything.
 * Each case makes one deliberately non-loopback attempt that the guard must stop before any socket
 * or resolver is used; the expected outcome is {@code NON-LOOPBACK ...} and exit status 3.
 * <ul>
 *   <li>connect: Dubbo client (the transporter used for every dubbo:// reference) to 192.0.2.1:9;</li>
 *   <li>bind: Dubbo server with bind.ip=0.0.0.0 (what stock Dubbo does with anyhost=true);</li>
 *   <li>socket: the JVM-wide check every socket connect/datagram send passes (called directly);</li>
 *   <li>lookup: the JVM-wide check every host-name lookup passes (called directly);</li>
 *   <li>triconnect, tribind (Dubbo 3): the same as connect and bind through Dubbo's
 *       PortUnificationExchanger (Triple client and server, the one-port server).</li>
 * </ul>
 * Exit 1 with {@code GUARD DID NOT TRIGGER} if the attempt was not stopped.
 */
final class GuardTest {
    private GuardTest() {
    }

    @SuppressWarnings("removal")
    static int run(String[] args) throws Exception {
        if (args.length < 2) throw new Main.UsageException("guardtest needs connect|bind|socket|lookup|triconnect|tribind");
        LoopbackTransporter t = new LoopbackTransporter();
        switch (args[1]) {
            case "connect":
                t.connect(URL.valueOf("dubbo://192.0.2.1:9/" + DubboSetup.INTERFACE + "?codec=dubbo"),
                        new ChannelHandlerAdapter());
                break;
            case "bind":
                t.bind(URL.valueOf("dubbo://0.0.0.0:0/" + DubboSetup.INTERFACE + "?codec=dubbo&bind.ip=0.0.0.0"),
                        new ChannelHandlerAdapter());
                break;
            case "socket": {
                SecurityManager sm = System.getSecurityManager();
                if (sm == null) {
                    System.out.println("GUARD DID NOT TRIGGER: no security manager (" + Loopback.securityManagerStatus() + ")");
                    return 1;
                }
                sm.checkConnect("192.0.2.1", 9);
                break;
            }
            case "lookup": {
                SecurityManager sm = System.getSecurityManager();
                if (sm == null) {
                    System.out.println("GUARD DID NOT TRIGGER: no security manager (" + Loopback.securityManagerStatus() + ")");
                    return 1;
                }
                sm.checkConnect("non-loopback.invalid", -1);
                break;
            }
            case "triconnect":
            case "tribind":
                try {
                    Class.forName("io.github.hessianrs.dubbointerop.TriGuardTest")
                            .getDeclaredMethod("run", String.class).invoke(null, args[1]);
                } catch (ClassNotFoundException e) {
                    throw new Main.UsageException(args[1] + " needs a Dubbo 3 flavour");
                }
                break;
            default:
                throw new Main.UsageException("guardtest needs connect|bind|socket|lookup|triconnect|tribind");
        }
        System.out.println("GUARD DID NOT TRIGGER: " + args[1]);
        return 1;
    }
}
