package io.github.hessianrs.dubbointerop;

import org.apache.dubbo.common.URL;
import org.apache.dubbo.remoting.exchange.PortUnificationExchanger;
import org.apache.dubbo.remoting.transport.ChannelHandlerAdapter;

/**
 * {@code guardtest triconnect|tribind} (Dubbo 3): the same deliberate non-loopback attempts as
 * {@code connect}/{@code bind}, made through Dubbo's own entry point for Triple and the one-port
 * server, {@code PortUnificationExchanger} (the adaptive PortUnificationTransporter, i.e. whatever
 * the SPI resolves {@code netty4} to), so they prove {@link LoopbackPuTransporter} is the one in use.
 */
final class TriGuardTest {
    private TriGuardTest() {
    }

    static void run(String what) {
        String path = "/" + DubboSetup.INTERFACE;
        if (what.equals("triconnect")) {
            PortUnificationExchanger.connect(URL.valueOf("tri://192.0.2.1:9" + path), new ChannelHandlerAdapter());
        } else {
            PortUnificationExchanger.bind(URL.valueOf("tri://127.0.0.1:0" + path + "?bind.ip=0.0.0.0&anyhost=true"),
                    new ChannelHandlerAdapter());
        }
    }
}
