package io.github.hessianrs.dubbointerop;

import org.apache.dubbo.common.extension.Activate;
import org.apache.dubbo.rpc.Filter;
import org.apache.dubbo.rpc.Invocation;
import org.apache.dubbo.rpc.Invoker;
import org.apache.dubbo.rpc.Result;
import org.apache.dubbo.rpc.RpcException;

/**
 * A consumer-side filter (SPI name {@code interop-protocol}, active on every consumer) that records
 * the protocol of the invoker each call actually went through ({@code tri}, {@code dubbo}): the
 * consumer filters wrap each protocol invoker, so {@code invoker.getUrl()} is the provider URL the
 * consumer chose (after Dubbo 3.3's preferred-protocol switch, when it found it in a registry).
 */
@Activate(group = "consumer")
public class ProtocolRecorder implements Filter {
    static volatile String lastProtocol;
    /** Every protocol a call went through, in first-use order. */
    static final java.util.Set<String> USED =
            java.util.Collections.synchronizedSet(new java.util.LinkedHashSet<>());

    @Override
    public Result invoke(Invoker<?> invoker, Invocation invocation) throws RpcException {
        lastProtocol = invoker.getUrl().getProtocol();
        USED.add(lastProtocol);
        return invoker.invoke(invocation);
    }
}
