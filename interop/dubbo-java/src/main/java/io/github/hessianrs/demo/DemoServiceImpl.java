package io.github.hessianrs.demo;

import java.util.Date;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;

/** The provider side of {@link DemoService}. */
public class DemoServiceImpl implements DemoService {
    public static final long CREATED_MS = 1700000000000L;

    private final AtomicLong calls = new AtomicLong();
    private volatile String lastFired;

    private void called() {
        calls.incrementAndGet();
    }

    @Override
    public String sayHello(String name) {
        called();
        return "Hello, " + name;
    }

    public static User userFor(long id) {
        return new User(id, "user-" + id, 30, "user-" + id + "@example.com", true, new Date(CREATED_MS));
    }

    @Override
    public User getUser(long id) {
        called();
        return userFor(id);
    }

    @Override
    public User echoUser(User u) {
        called();
        return u;
    }

    @Override
    public Map<String, Object> echoMap(Map<String, Object> m) {
        called();
        return m;
    }

    @Override
    public List<String> echoList(List<String> l) {
        called();
        return l;
    }

    @Override
    public void throwError(String message) {
        called();
        throw new IllegalStateException(message);
    }

    @Override
    public void doNothing() {
        called();
    }

    @Override
    public void fireAndForget(String s) {
        called();
        lastFired = s;
    }

    @Override
    public String lastFired() {
        called();
        return lastFired;
    }

    @Override
    public String slow(int millis) {
        called();
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        return "slept " + millis;
    }

    @Override
    public int add(int a, int b) {
        called();
        return a + b;
    }

    @Override
    public long count() {
        return calls.incrementAndGet();
    }

    @Override
    public String attachment(String key) {
        called();
        // The attachments a call arrived with: RpcContext.getServerAttachment() in Dubbo 3,
        // RpcContext.getContext() in 2.7 (which has no getServerAttachment).
        try {
            Object ctx;
            try {
                ctx = org.apache.dubbo.rpc.RpcContext.class.getMethod("getServerAttachment").invoke(null);
            } catch (NoSuchMethodException e) {
                ctx = org.apache.dubbo.rpc.RpcContext.class.getMethod("getContext").invoke(null);
            }
            return (String) ctx.getClass().getMethod("getAttachment", String.class).invoke(ctx, key);
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException(e);
        }
    }

    @Override
    public String replyAttachment(String key, String value) {
        called();
        // The context whose attachments go back with the result: getServerResponseContext() in
        // Dubbo 3, getServerContext() in 2.7 (which has no getServerResponseContext).
        try {
            Object ctx;
            try {
                ctx = org.apache.dubbo.rpc.RpcContext.class.getMethod("getServerResponseContext").invoke(null);
            } catch (NoSuchMethodException e) {
                ctx = org.apache.dubbo.rpc.RpcContext.class.getMethod("getServerContext").invoke(null);
            }
            ctx.getClass().getMethod("setObjectAttachment", String.class, Object.class).invoke(ctx, key, value);
            return value;
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException(e);
        }
    }
}
