// Copied from interop/java/src/main/java/io/github/hessianrs/interop/model/Mix.java (same class name,
// so the bytes are the Java vectors' and the Go/Rust peers' class).
package io.github.hessianrs.interop.model;

import java.io.Serializable;
import java.util.Date;
import java.util.Map;

/**
 * The struct of dubbo-go-hessian2's benchmark (field names as in Go).
 * hessian-lite writes the fields as: D, CD, CA, CC, CB, B, A.
 */
public class Mix implements Serializable {
    private static final long serialVersionUID = 1L;

    public int A;
    public String B;
    public Date CA;
    public long CB;
    public String CC;
    public double[] CD;
    public Map<String, Object> D;

    public Mix() {
    }
}
