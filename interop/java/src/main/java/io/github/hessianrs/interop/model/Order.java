package io.github.hessianrs.interop.model;

import java.io.Serializable;
import java.util.List;

/** A POJO nesting other POJOs and a collection. */
public class Order implements Serializable {
    private static final long serialVersionUID = 1L;

    public long orderId;
    public User buyer;
    public Address shipTo;
    public List<String> items;
    public double total;
    public Color color;

    public Order() {
    }
}
