package io.github.hessianrs.demo;

import java.util.ArrayList;
import java.util.List;

import com.google.protobuf.StringValue;

import org.apache.dubbo.common.stream.StreamObserver;
import org.apache.dubbo.rpc.TriRpcStatus;

/** The provider side of {@link EchoService}. */
public class EchoServiceImpl implements EchoService {
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
        String s = v.getValue();
        if (s.startsWith("many:")) {
            int n = Integer.parseInt(s.substring("many:".length()));
            for (int i = 0; i < n; i++) out.onNext(sv("m-" + i));
        } else {
            for (int i = 0; i < 3; i++) out.onNext(sv(s + "-" + i));
        }
        out.onCompleted();
    }

    @Override
    public StreamObserver<StringValue> clientStream(StreamObserver<StringValue> out) {
        return new StreamObserver<StringValue>() {
            private final List<String> got = new ArrayList<>();

            @Override
            public synchronized void onNext(StringValue v) {
                got.add(v.getValue());
            }

            @Override
            public void onError(Throwable t) {
                // the client went away; nothing to answer
            }

            @Override
            public synchronized void onCompleted() {
                out.onNext(sv(String.join(",", got)));
                out.onCompleted();
            }
        };
    }

    @Override
    public StreamObserver<StringValue> bidi(StreamObserver<StringValue> out) {
        return new StreamObserver<StringValue>() {
            @Override
            public void onNext(StringValue v) {
                out.onNext(sv("echo: " + v.getValue()));
            }

            @Override
            public void onError(Throwable t) {
                // the client went away
            }

            @Override
            public void onCompleted() {
                out.onCompleted();
            }
        };
    }
}
