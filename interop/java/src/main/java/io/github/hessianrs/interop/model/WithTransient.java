package io.github.hessianrs.interop.model;

import java.io.Serializable;

/** Only {@code kept} and {@code alsoKept} are written: transient and static fields are skipped. */
public class WithTransient implements Serializable {
    private static final long serialVersionUID = 1L;

    public static String STATIC_FIELD = "static";

    public String kept;
    public transient String skipped;
    public transient int skippedInt;
    public int alsoKept;

    public WithTransient() {
    }
}
