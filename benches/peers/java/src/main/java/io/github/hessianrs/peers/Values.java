package io.github.hessianrs.peers;

import io.github.hessianrs.interop.model.Mix;
import io.github.hessianrs.interop.model.User;

import java.util.Arrays;
import java.util.Date;
import java.util.HashMap;
import java.util.Map;

/**
 * The benchmark values: the same as interop/java's Cases.mix(true) / Cases.user(1, "Alice")
 * (hessian2/tests/vectors/lite3/mix_self_ref.bin, pojo_user.bin) and as the Go peer's
 * model.NewMix(true) / model.Alice().
 */
public final class Values {
    private Values() {
    }

    /** A='a', B="hello", CA=Date(1700000000000), CB=1<<40, CC="world", CD={1,2,3}, D={floats: CD, A: 97, m: this}. */
    public static Mix mix() {
        Mix m = new Mix();
        m.A = 'a';
        m.B = "hello";
        m.CA = new Date(1700000000000L);
        m.CB = 1L << 40;
        m.CC = "world";
        m.CD = new double[] {1, 2, 3};
        m.D = new HashMap<>();
        m.D.put("floats", m.CD);
        m.D.put("A", m.A);
        m.D.put("m", m);
        return m;
    }

    /** Cases.user(1, "Alice"). */
    public static User user() {
        return new User(1, "Alice", 31, "alice@example.com", true, new Date(1700000060000L));
    }

    /** Throws unless {@code o} is a decoded {@link #mix()}: same values, D.m is o itself, D.floats is o.CD. */
    public static void checkMix(Object o) {
        if (!(o instanceof Mix)) {
            throw new IllegalStateException("decoded a " + (o == null ? "null" : o.getClass().getName()) + ", not a Mix");
        }
        Mix m = (Mix) o;
        Mix want = mix();
        require(m.A == want.A && want.B.equals(m.B) && want.CA.equals(m.CA) && m.CB == want.CB
                && want.CC.equals(m.CC) && Arrays.equals(want.CD, m.CD), "Mix scalar fields");
        Map<String, Object> d = m.D;
        require(d != null && d.size() == 3, "Mix.D size");
        require(Integer.valueOf(97).equals(d.get("A")), "Mix.D.A");
        require(d.get("floats") == m.CD, "Mix.D.floats is the same array as Mix.CD");
        require(d.get("m") == m, "Mix.D.m is the Mix itself");
    }

    /** Throws unless {@code o} is a decoded {@link #user()}. */
    public static void checkUser(Object o) {
        if (!(o instanceof User)) {
            throw new IllegalStateException("decoded a " + (o == null ? "null" : o.getClass().getName()) + ", not a User");
        }
        User u = (User) o;
        User w = user();
        require(u.id == w.id && w.name.equals(u.name) && u.age == w.age && w.email.equals(u.email)
                && u.active == w.active && w.created.equals(u.created), "User fields");
    }

    private static void require(boolean ok, String what) {
        if (!ok) {
            throw new IllegalStateException("decoded value differs: " + what);
        }
    }
}
