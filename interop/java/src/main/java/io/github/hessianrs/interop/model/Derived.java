package io.github.hessianrs.interop.model;

/** Subclass: hessian-lite's field order puts superclass fields before the subclass's (per group). */
public class Derived extends Base {
    private static final long serialVersionUID = 1L;

    public int derivedId;
    public String derivedName;
    public java.util.Map<String, Object> derivedAttrs;

    public Derived() {
    }
}
