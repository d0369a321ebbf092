package io.github.hessianrs.demo;

import com.google.protobuf.StringValue;

import org.apache.dubbo.common.stream.StreamObserver;
import org.apache.dubbo.rpc.TriRpcStatus;

/** The provider side of {@link EchoService}. */
public class EchoServiceImpl implements EchoService {
    private final EchoStreams<StringValue> streams = new EchoStreams<>(EchoServiceImpl::sv, StringValue::getValue);

    static StringValue sv(String s) {
        return StringValue.newBuilder().setValue(s).build();
    }

    @Override
    public StringValue unary(StringValue v) {
        String s = v.getValue();
        if (s.equals("fail")) {
            // StatusRpcException: the Triple server answers with this status (grpc-status 3)
            throw TriRpcStatus.fromCode(TriRpcStatus.Code.INVALID_ARGUMENT).withDescription("fail requested")
                    .asException();
        }
        if (s.startsWith("sleep:")) {
            int ms = Integer.parseInt(s.substring("sleep:".length()));
            try {
                Thread.sleep(ms);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            return sv("slept " + ms);
        }
        return sv("echo: " + s);
    }

    @Override
    public void serverStream(StringValue v, StreamObserver<StringValue> out) {
        streams.serverStream(v, out);
    }

    @Override
    public StreamObserver<StringValue> clientStream(StreamObserver<StringValue> out) {
        return streams.clientStream(out);
    }

    @Override
    public StreamObserver<StringValue> bidi(StreamObserver<StringValue> out) {
        return streams.bidi(out);
    }
}
