package io.github.hessianrs.dubbointerop;

import java.net.InetSocketAddress;

import org.apache.dubbo.common.URL;
import org.apache.dubbo.common.utils.NetUtils;
import org.apache.dubbo.remoting.ChannelHandler;
import org.apache.dubbo.remoting.RemotingException;
import org.apache.dubbo.remoting.api.connection.AbstractConnectionClient;
import org.apache.dubbo.remoting.api.pu.AbstractPortUnificationServer;
import org.apache.dubbo.remoting.transport.netty4.NettyPortUnificationServer;
import org.apache.dubbo.remoting.transport.netty4.NettyPortUnificationTransporter;

/**
 * Dubbo 3's port-unification transport (the Triple server and client, and the dubbo protocol
 * server when it has an {@code ext-protocol}), pinned to loopback. Registered in
 * {@code META-INF/dubbo/org.apache.dubbo.remoting.api.pu.PortUnificationTransporter} as
 * {@code loopback} and over Dubbo's {@code netty4} (the default).
 *
 * <ul>
 *   <li>bind: {@code NettyPortUnificationServer.bind()} binds 0.0.0.0 when the URL has
 *       {@code anyhost=true} or its {@code bind.ip} starts with "127." (NetUtils.isInvalidLocalHost),
 *       and ServiceConfig always sets {@code anyhost=true} for a 127.0.0.1 host. Here the server gets
 *       a URL without {@code anyhost} and with {@code bind.ip=::ffff:127.0.0.1} (the IPv4-mapped
 *       spelling, which Dubbo does not call invalid and the JDK parses to the Inet4Address
 *       127.0.0.1), so it binds 127.0.0.1; the listening address is checked afterwards.</li>
 *   <li>connect: the connection client connects to {@code NetUtils.filterLocalHost(url host)}
 *       (127.0.0.1 stays 127.0.0.1 because Loopback pins NetUtils' caches); that address must be
 *       loopback before the client is created (3.3's NettyConnectionClient is final, so it
 *       cannot be overridden).</li>
 * </ul>
 */
public class LoopbackPuTransporter extends NettyPortUnificationTransporter {
    @Override
    public AbstractPortUnificationServer bind(URL url, ChannelHandler handler) throws RemotingException {
        String ip = url.getParameter("bind.ip", url.getHost());
        int port = url.getParameter("bind.port", url.getPort());
        InetSocketAddress a = Loopback.pinned(ip, port, "port-unification server bind");
        URL pinned = url.removeParameter("anyhost")
                .addParameter("bind.ip", "::ffff:" + a.getAddress().getHostAddress());
        AbstractPortUnificationServer server = new NettyPortUnificationServer(pinned, handler);
        Loopback.check(server.getLocalAddress(), "port-unification server listening address");
        return server;
    }

    @Override
    public AbstractConnectionClient connect(URL url, ChannelHandler handler) throws RemotingException {
        String host = NetUtils.filterLocalHost(url.getHost());
        Loopback.pinned(host, url.getPort(), "port-unification (triple) client connect");
        return super.connect(url, handler);
    }
}
