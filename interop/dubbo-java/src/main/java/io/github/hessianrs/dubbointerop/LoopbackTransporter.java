package io.github.hessianrs.dubbointerop;

import java.net.InetSocketAddress;

import org.apache.dubbo.common.URL;
import org.apache.dubbo.remoting.Channel;
import org.apache.dubbo.remoting.ChannelHandler;
import org.apache.dubbo.remoting.Client;
import org.apache.dubbo.remoting.RemotingException;
import org.apache.dubbo.remoting.RemotingServer;
import org.apache.dubbo.remoting.Transporter;
import org.apache.dubbo.remoting.transport.AbstractChannelHandlerDelegate;
import org.apache.dubbo.remoting.transport.netty4.NettyClient;
import org.apache.dubbo.remoting.transport.netty4.NettyServer;

/**
 * Dubbo's netty4 transport, pinned to loopback. Registered in
 * {@code META-INF/dubbo/org.apache.dubbo.remoting.Transporter} as {@code loopback} and, overriding
 * Dubbo's own entries (files under META-INF/dubbo/ override META-INF/dubbo/internal/), as
 * {@code netty} and {@code netty4}, so every dubbo-protocol server and client of the JVM uses it.
 *
 * <ul>
 *   <li>bind: Dubbo's AbstractServer turns any 127.x bind.ip (and anyhost=true) into 0.0.0.0; here the
 *       server binds the URL's {@code bind.ip} (else host) itself, which must be loopback.</li>
 *   <li>connect: Dubbo's AbstractClient replaces a 127.x host by {@code NetUtils.getLocalHost()} (the
 *       first LAN address); here the client connects to the URL's host, which must be loopback.</li>
 *   <li>every channel: local and remote address must be loopback when it connects.</li>
 * </ul>
 * Violations end the JVM through {@link Loopback#fail} (status 3, {@code NON-LOOPBACK <addr>}).
 */
public class LoopbackTransporter implements Transporter {
    public static final String NAME = "loopback";

    @Override
    public RemotingServer bind(URL url, ChannelHandler handler) throws RemotingException {
        return new Server(url, new ChannelGuard(handler, "server channel"));
    }

    @Override
    public Client connect(URL url, ChannelHandler handler) throws RemotingException {
        return new LoopbackClient(url, new ChannelGuard(handler, "client channel"));
    }

    /** Netty 4 server that binds only the loopback address of its URL. */
    public static class Server extends NettyServer {
        public Server(URL url, ChannelHandler handler) throws RemotingException {
            super(url, handler);
        }

        @Override
        public InetSocketAddress getBindAddress() {
            // called from the super constructor (doOpen): no fields of this class may be used
            URL url = getUrl();
            String ip = url.getParameter("bind.ip", url.getHost());
            int port = url.getParameter("bind.port", url.getPort());
            return Loopback.pinned(ip, port, "server bind");
        }
    }

    /** Netty 4 client that connects only to the loopback address of its URL. */
    public static class LoopbackClient extends NettyClient {
        public LoopbackClient(URL url, ChannelHandler handler) throws RemotingException {
            super(url, handler);
        }

        @Override
        public InetSocketAddress getConnectAddress() {
            URL url = getUrl();
            return Loopback.pinned(url.getHost(), url.getPort(), "client connect");
        }
    }

    /** Checks both ends of every channel that connects. */
    static final class ChannelGuard extends AbstractChannelHandlerDelegate {
        private final String what;

        ChannelGuard(ChannelHandler handler, String what) {
            super(handler);
            this.what = what;
        }

        @Override
        public void connected(Channel channel) throws RemotingException {
            Loopback.check(channel.getLocalAddress(), what + " local address");
            Loopback.check(channel.getRemoteAddress(), what + " remote address");
            super.connected(channel);
        }
    }
}
