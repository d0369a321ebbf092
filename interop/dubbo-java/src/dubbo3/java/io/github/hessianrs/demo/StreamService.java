package io.github.hessianrs.demo;

import org.apache.dubbo.common.stream.StreamObserver;

/**
 * Triple interface style streaming (Dubbo 3 only): the same three streams as {@link EchoService},
 * with {@code String} messages instead of protobuf ones, so Dubbo wraps every message
 * ({@code ReflectionPackableMethod.needWrap}): each request message is a
 * {@code TripleRequestWrapper} with one argument, each response a {@code TripleResponseWrapper},
 * serialized in the caller's serialization. No version, no group.
 */
public interface StreamService {
    /** v-0, v-1, v-2, then completed; "many:N" -> m-0 .. m-(N-1). */
    void serverStream(String v, StreamObserver<String> out);

    /** All requests joined with "," -> one answer when the client completes. */
    StreamObserver<String> clientStream(StreamObserver<String> out);

    /** "echo: " + v for each v as it arrives; completes when the client completes. */
    StreamObserver<String> bidi(StreamObserver<String> out);
}
