package io.github.hessianrs.demo;

import com.google.protobuf.StringValue;

import org.apache.dubbo.common.stream.StreamObserver;

/**
 * Triple IDL style (Dubbo 3 only): every parameter and return type is a protobuf message
 * ({@code google.protobuf.StringValue}, field 1 string), so Dubbo sends the messages as they are,
 * without {@code TripleRequestWrapper}/{@code TripleResponseWrapper}
 * ({@code ReflectionPackableMethod.needWrap}). No version, no group. The four gRPC call shapes:
 * unary, server stream, client stream and bidi stream (the last two look the same to Dubbo's
 * reflection: both are {@code StreamObserver<Req> m(StreamObserver<Resp>)}, BI_STREAM; on the wire a
 * client stream is a bidi stream whose server answers once, at the end).
 */
public interface EchoService {
    /** "echo: " + v; "fail" -> status INVALID_ARGUMENT "fail requested"; "sleep:N" -> sleeps N ms, "slept N". */
    StringValue unary(StringValue v);

    /** v-0, v-1, v-2, then completed; "many:N" -> m-0 .. m-(N-1). */
    void serverStream(StringValue v, StreamObserver<StringValue> out);

    /** All requests joined with "," -> one answer when the client completes. */
    StreamObserver<StringValue> clientStream(StreamObserver<StringValue> out);

    /** "echo: " + v for each v as it arrives; completes when the client completes. */
    StreamObserver<StringValue> bidi(StreamObserver<StringValue> out);
}
