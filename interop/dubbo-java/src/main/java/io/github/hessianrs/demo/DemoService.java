package io.github.hessianrs.demo;

import java.util.List;
import java.util.Map;

/**
 * The demo service of the Dubbo interop tests (exported with version {@code 1.0.0}, no group).
 * The Rust server implements the same interface; {@code consumer} checks both.
 */
public interface DemoService {
    /** {@code "Hello, " + name} (also for {@code null}: {@code "Hello, null"}). */
    String sayHello(String name);

    /** {@code User(id, "user-" + id, 30, "user-" + id + "@example.com", true, new Date(1700000000000L))}. */
    User getUser(long id);

    /** Returns its argument. */
    User echoUser(User u);

    /** Returns its argument. */
    Map<String, Object> echoMap(Map<String, Object> m);

    /** Returns its argument. */
    List<String> echoList(List<String> l);

    /** Throws {@code new IllegalStateException(message)}. */
    void throwError(String message);

    /** Does nothing. */
    void doNothing();

    /** Records {@code s}; called one-way (no response) by the consumer. */
    void fireAndForget(String s);

    /** The last value given to {@link #fireAndForget}, {@code null} before the first. */
    String lastFired();

    /** Sleeps {@code millis} ms, then returns {@code "slept " + millis}. */
    String slow(int millis);

    /** {@code a + b} with Java int overflow (wrapping). */
    int add(int a, int b);

    /** Number of calls of any method of this service handled so far, this one included. */
    long count();

    /**
     * The attachment {@code key} as this call reached the provider ({@code null} without it): what
     * a proxy in between added is seen here. Not called by the default checks (the Rust demo
     * server does not serve it); {@code consumer --expect-attachment K=V} calls it.
     */
    String attachment(String key);

    /**
     * Returns {@code value}, and answers with the response attachment {@code key=value} (set in
     * the provider's server context, which Dubbo sends back with the result). Not called by the
     * default checks; {@code consumer --expect-reply-attachment K=V} calls it.
     */
    String replyAttachment(String key, String value);
}
