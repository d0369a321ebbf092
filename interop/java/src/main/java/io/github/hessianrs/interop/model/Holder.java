package io.github.hessianrs.interop.model;

import java.io.Serializable;

/** Generic holder with an Object-typed field and a Timestamp-typed field. */
public class Holder implements Serializable {
    private static final long serialVersionUID = 1L;

    public Object value;
    public java.sql.Timestamp stamp;
    public int[] ints;

    public Holder() {
    }
}
