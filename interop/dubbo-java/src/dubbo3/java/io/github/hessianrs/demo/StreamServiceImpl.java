package io.github.hessianrs.demo;

import java.util.function.Function;

import org.apache.dubbo.common.stream.StreamObserver;

/** The provider side of {@link StreamService}. */
public class StreamServiceImpl implements StreamService {
    private final EchoStreams<String> streams = new EchoStreams<>(Function.identity(), Function.identity());

    @Override
    public void serverStream(String v, StreamObserver<String> out) {
        streams.serverStream(v, out);
    }

    @Override
    public StreamObserver<String> clientStream(StreamObserver<String> out) {
        return streams.clientStream(out);
    }

    @Override
    public StreamObserver<String> bidi(StreamObserver<String> out) {
        return streams.bidi(out);
    }
}
