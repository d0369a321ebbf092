package io.github.hessianrs.peers;

import com.alibaba.com.caucho.hessian.io.Hessian2Input;
import com.alibaba.com.caucho.hessian.io.Hessian2Output;
import com.alibaba.com.caucho.hessian.io.SerializerFactory;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;

/**
 * Per-thread reusable encoder/decoder, used the way Dubbo's Hessian2ObjectOutput/Input use
 * hessian-lite: one Hessian2Output / Hessian2Input per thread, {@code init(stream)} per message
 * (which resets references, class definitions and type names), {@code writeObject} + {@code flush}
 * to write, {@code readObject} to read.
 */
public final class Codec {
    /** One factory for the process, like Dubbo's Hessian2SerializerFactory.SERIALIZER_FACTORY. */
    static final SerializerFactory FACTORY = new SerializerFactory();

    private final ByteArrayOutputStream baos = new ByteArrayOutputStream(256);
    private final Hessian2Output out = new Hessian2Output(null);
    private final Hessian2Input in = new Hessian2Input(null);

    public Codec() {
        out.setSerializerFactory(FACTORY);
        in.setSerializerFactory(FACTORY);
    }

    /** Encodes {@code v} as a whole message into the reused stream, which is returned. */
    public ByteArrayOutputStream encode(Object v) throws IOException {
        baos.reset();
        out.init(baos);
        out.writeObject(v);
        out.flush();
        return baos;
    }

    public byte[] encodeToArray(Object v) throws IOException {
        return encode(v).toByteArray();
    }

    /** Decodes one value from {@code bytes} (rewound to its start). */
    public Object decode(ByteArrayInputStream bytes) throws IOException {
        bytes.reset();
        in.init(bytes);
        return in.readObject();
    }
}
