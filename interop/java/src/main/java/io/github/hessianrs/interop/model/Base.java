package io.github.hessianrs.interop.model;

import java.io.Serializable;

public class Base implements Serializable {
    private static final long serialVersionUID = 1L;

    public int baseId;
    public String baseName;
    public java.util.List<Object> baseTags;

    public Base() {
    }
}
