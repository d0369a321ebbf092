package io.github.hessianrs.interop.model;

import java.io.Serializable;

/** Every primitive type plus their boxed forms. */
public class AllPrimitives implements Serializable {
    private static final long serialVersionUID = 1L;

    public boolean z;
    public byte b;
    public short s;
    public int i;
    public long l;
    public float f;
    public double d;
    public char c;
    public Boolean boxedZ;
    public Byte boxedB;
    public Short boxedS;
    public Integer boxedI;
    public Long boxedL;
    public Float boxedF;
    public Double boxedD;
    public Character boxedC;

    public AllPrimitives() {
    }
}
