package io.github.hessianrs.demo;

import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;

import org.apache.dubbo.common.stream.StreamObserver;

/**
 * The provider side of the three echo streams, for any message type {@code T} that carries a
 * string: {@link EchoServiceImpl} (protobuf StringValue, IDL style) and {@link StreamServiceImpl}
 * (String, interface style) answer alike.
 */
public final class EchoStreams<T> {
    private final Function<String, T> wrap;
    private final Function<T, String> unwrap;

    public EchoStreams(Function<String, T> wrap, Function<T, String> unwrap) {
        this.wrap = wrap;
        this.unwrap = unwrap;
    }

    public void serverStream(T v, StreamObserver<T> out) {
        String s = unwrap.apply(v);
        if (s.startsWith("many:")) {
            int n = Integer.parseInt(s.substring("many:".length()));
            for (int i = 0; i < n; i++) out.onNext(wrap.apply("m-" + i));
        } else {
            for (int i = 0; i < 3; i++) out.onNext(wrap.apply(s + "-" + i));
        }
        out.onCompleted();
    }

    public StreamObserver<T> clientStream(StreamObserver<T> out) {
        return new StreamObserver<T>() {
            private final List<String> got = new ArrayList<>();

            @Override
            public synchronized void onNext(T v) {
                got.add(unwrap.apply(v));
            }

            @Override
            public void onError(Throwable t) {
                // the client went away; nothing to answer
            }

            @Override
            public synchronized void onCompleted() {
                out.onNext(wrap.apply(String.join(",", got)));
                out.onCompleted();
            }
        };
    }

    public StreamObserver<T> bidi(StreamObserver<T> out) {
        return new StreamObserver<T>() {
            @Override
            public void onNext(T v) {
                out.onNext(wrap.apply("echo: " + unwrap.apply(v)));
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
