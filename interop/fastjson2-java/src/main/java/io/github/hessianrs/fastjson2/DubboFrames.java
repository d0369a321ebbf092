package io.github.hessianrs.fastjson2;

import org.apache.dubbo.common.URL;
import org.apache.dubbo.common.serialize.ObjectInput;
import org.apache.dubbo.common.serialize.ObjectOutput;
import org.apache.dubbo.common.serialize.Serialization;
import org.apache.dubbo.rpc.model.FrameworkModel;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;

/** Dubbo 3.2.19's own fastjson2 serialization (id 23), as its codec uses it for bodies. */
final class DubboFrames {
    private DubboFrames() {
    }

    private static Serialization serialization() {
        return FrameworkModel.defaultModel().getExtensionLoader(Serialization.class).getExtension("fastjson2");
    }

    private static URL url() {
        return URL.valueOf("dubbo://127.0.0.1:20880/x?serialization=fastjson2");
    }

    /** What a request body starts with, then a POJO argument, each by Dubbo's ObjectOutput. */
    static byte[] write() throws IOException {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        ObjectOutput out = serialization().serialize(url(), bytes);
        out.writeUTF("2.0.2");
        out.writeUTF("io.github.hessianrs.demo.DemoService");
        out.writeInt(42);
        out.writeObject(Cases.user(1, "Alice"));
        out.flushBuffer();
        return bytes.toByteArray();
    }

    /** Reads the four objects back with Dubbo's ObjectInput, as its codec would. */
    static String read(byte[] body) throws Exception {
        ObjectInput in = serialization().deserialize(url(), new ByteArrayInputStream(body));
        String version = in.readUTF();
        String service = in.readUTF();
        int n = in.readInt();
        io.github.hessianrs.interop.model.User u = in.readObject(io.github.hessianrs.interop.model.User.class);
        return version + "|" + service + "|" + n + "|" + u.id + "," + u.name + "," + u.age + "," + u.email + ","
                + u.active + "," + u.created.getTime();
    }
}
